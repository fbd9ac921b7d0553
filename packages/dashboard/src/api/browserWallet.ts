// An owner's browser wallet over EIP-1193 (window.ethereum, as MetaMask, Rabby, Frame or a hardware wallet's
// bridge inject it): the dashboard asks for an account, then for an eth_signTypedData_v4 signature of what the
// owners sign. The key never leaves the wallet; the server decides whether the signer is an owner.

/** The one method of EIP-1193 the dashboard uses. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** Why no signature came back: no wallet in this browser, the person declined, or the wallet failed. */
export class WalletProblem extends Error {
  readonly kind: 'missing' | 'declined' | 'failed';
  constructor(kind: 'missing' | 'declined' | 'failed', message: string) {
    super(message);
    this.name = 'WalletProblem';
    this.kind = kind;
  }
}

type TypedData = {
  domain: Record<string, unknown>;
  types: Record<string, ReadonlyArray<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
};

const DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
] as const;

/**
 * The typed data as eth_signTypedData_v4 takes it: wallets hash the domain by `types.EIP712Domain`, so its fields
 * are spelled out from the domain itself (in EIP-712's order) when the request leaves them implicit. Pure.
 */
export function withDomainType<T extends TypedData>(typedData: T): T {
  if (typedData.types.EIP712Domain !== undefined) return typedData;
  const fields = DOMAIN_FIELDS.filter((field) => typedData.domain[field.name] !== undefined);
  return { ...typedData, types: { EIP712Domain: fields, ...typedData.types } };
}

function provider(): Eip1193Provider | null {
  const candidate = (globalThis as { ethereum?: unknown }).ethereum;
  if (typeof candidate !== 'object' || candidate === null) return null;
  return typeof (candidate as { request?: unknown }).request === 'function'
    ? (candidate as Eip1193Provider)
    : null;
}

/** A wallet's refusal as a WalletProblem: EIP-1193's 4001 is the person saying no. */
function problemOf(error: unknown): WalletProblem {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  if (code === 4001) return new WalletProblem('declined', 'You declined the request in your wallet.');
  const said = typeof message === 'string' && message !== '' ? `: ${message}` : '';
  return new WalletProblem('failed', `Your wallet could not sign${said}.`);
}

/**
 * The wallet on the typed data's chain: wallets refuse to sign EIP-712 data for a chain other than their active
 * one, so it is asked to switch first. A wallet that cannot say its chain is left to judge for itself.
 */
async function onChain(wallet: Eip1193Provider, chainId: unknown): Promise<void> {
  if (typeof chainId !== 'number') return;
  const active = await wallet.request({ method: 'eth_chainId' }).catch(() => null);
  if (typeof active !== 'string' || Number.parseInt(active, 16) === chainId) return;
  try {
    await wallet.request({
      method: 'wallet_switchEthereumChain',
      params: [{ chainId: `0x${chainId.toString(16)}` }],
    });
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 4001) throw problemOf(error);
    throw new WalletProblem(
      'failed',
      `Your wallet is on chain ${Number.parseInt(active, 16)}; switch it to chain ${chainId} (the service's) and sign again.`,
    );
  }
}

/** Asks the browser wallet for an account and its signature of `typedData`; throws a WalletProblem. */
export async function signWithBrowserWallet(
  typedData: TypedData,
): Promise<{ signer: string; signature: string }> {
  const wallet = provider();
  if (wallet === null)
    throw new WalletProblem(
      'missing',
      'No browser wallet found. Open the dashboard in a browser with a wallet (such as MetaMask) holding an owner’s key.',
    );
  try {
    const accounts = await wallet.request({ method: 'eth_requestAccounts' });
    const signer = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null;
    if (signer === null) throw new WalletProblem('failed', 'Your wallet shared no account.');
    await onChain(wallet, typedData.domain.chainId);
    const signature = await wallet.request({
      method: 'eth_signTypedData_v4',
      params: [signer, JSON.stringify(withDomainType(typedData))],
    });
    if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature))
      throw new WalletProblem('failed', 'Your wallet answered something that is not a signature.');
    return { signer, signature };
  } catch (error) {
    throw error instanceof WalletProblem ? error : problemOf(error);
  }
}
