// The other side of MPP, built from the protocol's own package: a paid HTTP API answering 402 with mppx's
// `WWW-Authenticate: Payment` challenges (mppx/server's evm charge: USDC on anvil, EIP-3009 `authorization`
// credentials), verifying the credential with mppx and settling it on anvil itself — transferWithAuthorization
// from an anvil-funded account — before answering with a `Payment-Receipt`. mppx's evm charge also offers x402
// `exact` at the same price in the same 402 (PAYMENT-REQUIRED); the seller keeps that offer only when asked
// (`offerX402`), so a test can pay MPP alone or see a buyer choose between both. It logs every request so tests
// can say what the upstream was asked. scripts/mpp-seller.ts serves it on a local chain for the docs' walk-through.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { evm, Mppx } from 'mppx/server';
import { type Address, createWalletClient, type Hex, http, parseAbi, publicActions } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { ANVIL_MNEMONIC, anvilChain } from './anvil.ts';
import type { EvmWorld } from './evm.ts';

/** The seller pays its own settlement gas from this anvil account (not the deployer, not the x402 facilitator). */
const SELLER_GAS_INDEX = 6;
const SECRET_KEY = 'mpp-test-seller-secret-key-of-32-bytes!';

const tokenAbi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);

export interface MppSellerRequest {
  method: string;
  path: string;
  /** It carried a payment: `Authorization: Payment …` (MPP) or PAYMENT-SIGNATURE (x402). */
  paid: boolean;
  protocol: 'mpp' | 'x402' | null;
}

export interface MppSeller {
  origin: string;
  payTo: Address;
  requests: MppSellerRequest[];
  paidRequests(): MppSellerRequest[];
  /** Settlements it sent to the chain (transaction hashes). */
  settlements: Hex[];
  close(): Promise<void>;
}

export interface MppSellerOptions {
  /** GET /report's price, as a decimal USDC string ("1.5"). */
  reportPrice: string;
  /** How long its challenges are good for (seconds). */
  expiresSeconds?: number;
  /** Another chain id in the challenge: nothing payable on this one. */
  chainId?: number;
  /** Keep mppx's x402 offer beside the MPP challenge (default: MPP only). */
  offerX402?: boolean;
  /** The anvil account that pays its settlement gas (default 6; another when beside sellers using that one). */
  gasAccountIndex?: number;
}

export async function startMppSeller(
  world: EvmWorld,
  payTo: Address,
  options: MppSellerOptions,
): Promise<MppSeller> {
  const settlements: Hex[] = [];
  const client = sellerGasClient(world, options.gasAccountIndex ?? SELLER_GAS_INDEX);
  const mppx = Mppx.create({
    methods: [
      evm.charge({
        chainId: options.chainId ?? world.anvil.chainId,
        currency: world.usdc.address,
        decimals: 6,
        recipient: payTo,
        authorization: { name: 'USD Coin', version: '2' },
        async settle({ payload }: { payload: Record<string, string> }) {
          const hash = await settleAuthorization(client, world, payload);
          settlements.push(hash);
          return { reference: hash };
        },
      } as never),
    ],
    secretKey: SECRET_KEY,
  });
  const requests: MppSellerRequest[] = [];
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const mpp = /^payment\s/i.test(req.headers.authorization ?? '');
    const x402 = req.headers['payment-signature'] !== undefined;
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      paid: mpp || x402,
      protocol: mpp ? 'mpp' : x402 ? 'x402' : null,
    });
    if (url.pathname === '/free') return send(res, new Response(JSON.stringify({ free: true })));
    if (url.pathname !== '/report') return send(res, new Response('not found', { status: 404 }));
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method ?? 'GET',
      headers: req.headers as Record<string, string>,
    });
    const expires = new Date(Date.now() + (options.expiresSeconds ?? 120) * 1000).toISOString();
    const result = await (
      mppx as never as { charge: (o: object) => (r: Request) => Promise<ChargeResult> }
    ).charge({
      amount: options.reportPrice,
      expires,
      description: 'a paid report',
    })(request);
    if (result.status === 402) {
      const challenge = result.challenge;
      if (options.offerX402 !== true) challenge.headers.delete('payment-required');
      return send(res, challenge);
    }
    return send(res, result.withReceipt(Response.json({ report: 'the paid content', lines: 3 })));
  }
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    payTo,
    requests,
    paidRequests: () => requests.filter((r) => r.paid),
    settlements,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The seller's own settlement of an EIP-3009 authorization: transferWithAuthorization, waited for in a block. */
export async function settleAuthorization(
  client: ReturnType<typeof sellerGasClient>,
  world: EvmWorld,
  payload: Record<string, string>,
): Promise<Hex> {
  const hash = await client.writeContract({
    address: world.usdc.address,
    abi: tokenAbi,
    functionName: 'transferWithAuthorization',
    args: [
      payload.from as Address,
      payload.to as Address,
      BigInt(payload.value!),
      BigInt(payload.validAfter!),
      BigInt(payload.validBefore!),
      payload.nonce as Hex,
      payload.signature as Hex,
    ],
  });
  await client.waitForTransactionReceipt({ hash });
  return hash;
}

/** A wallet client of an anvil-funded account that pays a seller's settlement gas. */
export function sellerGasClient(world: EvmWorld, index: number) {
  return createWalletClient({
    account: mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index }),
    chain: anvilChain(world.anvil),
    transport: http(world.anvil.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
}

type ChargeResult =
  | { status: 402; challenge: Response }
  | { status: 200; withReceipt: (response: Response) => Response };

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.end(Buffer.from(await response.arrayBuffer()));
}
