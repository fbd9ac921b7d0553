// Setting the bounded treasury up (docs/evm-rail.md, "Bounded mode"), as CLI steps:
// 1. `deploy-smart-accounts` (a local chain only): the framework's environment from its npm bytecode, paid by the
//    service's key; prints the address variables for the configuration.
// 2. `treasury-prepare --out FILE`: deploys the owners' account if it has no code yet (the service's key pays the
//    gas; the account is the owners' from its first instruction), fixes the first period's start, and writes the
//    delegation for the owners to sign with its EIP-712 form (eth_signTypedData_v4).
// 3. `treasury-grant --in FILE`: the same file with `signatures: [{signer, signature}]` added by the owners; the
//    service checks it on chain (the account's ERC-1271) and stores it. Refills start on the next round. On a
//    deployment that ran hot, it also says what the service moves into the account once it runs bounded
//    (float-return.ts: the hot treasury above TREASURY_FLOAT_MAX, through the outbox).
// A hybrid account (TREASURY_ACCOUNT_KIND=hybrid: one owner's key and/or their passkeys, any one signs) is created
// first by `treasury-create-hybrid --email ADDRESS [--owner 0x…]` from the P-256 keys of the passkeys that person
// enrolled in this service (their COSE public keys, key id = credential id); it prints TREASURY_ACCOUNT.
import { HybridDeleGator } from '@metamask/delegation-abis';
import { decodeERC20TokenPeriodTransferTerms } from '@metamask/delegation-core';
import type { Kysely } from 'kysely';
import { createWalletClient, defineChain, type Hex, hashTypedData, http } from 'viem';
import type { Database } from '../../store/schema.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import type { ServiceKeys } from '../keys.ts';
import { usdcAbi } from '../token.ts';
import { ALLOWANCE_START_SETTING, boundedAccount, storeSignedDelegation } from './bounded.ts';
import {
  FRAMEWORK_VARIABLES,
  type FrameworkAddresses,
  HYBRID_IMPL_VARIABLE,
  hybridImplementation,
  parseFramework,
} from './bounded-config.ts';
import {
  type Address,
  delegationSalt,
  delegationTypedData,
  hybridAccount,
  multiSigSignature,
  ownersAccount,
  type P256Key,
  type SignedDelegation,
  unsignedDelegation,
} from './delegation.ts';
import { floatOwedMicros, floatReturnAmount } from './float-return.ts';
import { currentOwners } from './owners-chain.ts';

const RECEIPT_TIMEOUT_MS = 60_000;

function serviceWallet(config: EvmConfig, keys: Pick<ServiceKeys, 'treasury'>) {
  const chain = defineChain({
    id: config.chainId,
    name: `chain ${config.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  return {
    chain,
    wallet: createWalletClient({ account: keys.treasury, chain, transport: http(config.rpcUrl) }),
  };
}

/**
 * Deploys the MetaMask Delegation Framework (release 1.3.0, bytecode from @metamask/delegation-abis) with the kit's
 * deploySmartAccountsEnvironment; returns the configuration lines naming the four contracts the service uses, and
 * the EntryPoint (ERC-4337) through which the owners' account executes what they sign.
 */
export async function deployFramework(
  client: ChainClient,
  config: EvmConfig,
  keys: Pick<ServiceKeys, 'treasury'>,
): Promise<{ lines: string[]; addresses: FrameworkAddresses; entryPoint: Address }> {
  const gasWei = await client.getBalance({ address: keys.treasury.address });
  if (gasWei === 0n)
    throw new Error(
      `the service's key ${keys.treasury.address} has no gas to deploy the framework with: fund it, then run this again`,
    );
  // The kit reports its use to MetaMask unless told not to; this command must not phone anybody.
  process.env.DO_NOT_TRACK = '1';
  const { deploySmartAccountsEnvironment } = await import('@metamask/smart-accounts-kit/utils');
  const { chain, wallet } = serviceWallet(config, keys);
  const environment = await deploySmartAccountsEnvironment(wallet, client as never, chain);
  const addresses: FrameworkAddresses = {
    delegationManager: environment.DelegationManager,
    simpleFactory: environment.SimpleFactory,
    multiSigImpl: environment.implementations.MultiSigDeleGatorImpl!,
    periodTransferEnforcer: environment.caveatEnforcers.ERC20PeriodTransferEnforcer!,
    entryPoint: environment.EntryPoint,
  };
  const lines = Object.entries(FRAMEWORK_VARIABLES).map(
    ([key, name]) => `${name}=${addresses[key as keyof FrameworkAddresses]}`,
  );
  // Only a hybrid account's creation needs it; printed so `treasury-create-hybrid` works on this chain too.
  lines.push(`${HYBRID_IMPL_VARIABLE}=${environment.implementations.HybridDeleGatorImpl!}`);
  return { lines, addresses, entryPoint: environment.EntryPoint };
}

export interface PreparedDelegation {
  delegation: Omit<SignedDelegation, 'salt' | 'signature'> & { salt: string };
  typedData: ReturnType<typeof delegationTypedData>;
  /** The typed data's hash: a hybrid account's passkey signs it as its WebAuthn challenge (base64url). */
  digest: Hex;
  owners: Address[];
  threshold: number;
}

/** Step 2: the account deployed (if it is the service's to deploy), the start fixed, the delegation to sign. */
export async function prepareDelegation(deps: {
  db: Kysely<Database>;
  client: ChainClient;
  config: EvmConfig;
  keys: Pick<ServiceKeys, 'treasury'>;
}): Promise<PreparedDelegation> {
  const bounded = deps.config.bounded!;
  const service = deps.keys.treasury.address.toLowerCase() as Address;
  const account = boundedAccount(bounded, deps.keys);
  const code = await deps.client.getCode({ address: account });
  if (bounded.accountKind === 'hybrid') await checkHybrid(deps.client, account, bounded.owners[0]);
  else if (code === undefined || code === '0x') {
    if (bounded.account !== undefined)
      throw new Error(`TREASURY_ACCOUNT ${account} has no code on chain ${deps.config.chainId}`);
    const { deployCall } = ownersAccount(bounded.framework, bounded.owners, bounded.threshold, service);
    const { wallet } = serviceWallet(deps.config, deps.keys);
    const hash = await wallet.sendTransaction(deployCall);
    const receipt = await deps.client.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
    if (receipt.status !== 'success') throw new Error(`deploying the owners' account failed (${hash})`);
  }
  // The chain's clock, not ours: the enforcer refuses every redemption before the start, and a service clock
  // a minute ahead would make the first refills fail.
  const head = await deps.client.getBlock({ blockTag: 'latest' });
  const startSeconds = await allowanceStart(deps.db, bounded.allowanceStartSeconds, Number(head.timestamp));
  const terms = {
    usdc: deps.config.usdcAddress as Address,
    allowanceMicros: bounded.allowanceMicros,
    periodSeconds: bounded.periodSeconds,
    startSeconds,
  };
  const delegation = unsignedDelegation(bounded.framework, account, service, terms, delegationSalt());
  const typedData = delegationTypedData(delegation, deps.config.chainId, bounded.framework.delegationManager);
  // Who signs it: the owners the account has on chain (they may have changed them since it was set up).
  const { owners, threshold } = await currentOwners(deps);
  return {
    delegation: { ...delegation, salt: String(delegation.salt) },
    typedData,
    digest: hashTypedData(typedData),
    owners,
    threshold,
  };
}

/** An adopted hybrid account: deployed, a HybridDeleGator, its owner the one configured (or none). */
async function checkHybrid(client: ChainClient, account: Address, owner: Address | undefined): Promise<void> {
  const read = <T>(functionName: 'NAME' | 'owner') =>
    client.readContract({ address: account, abi: HybridDeleGator, functionName }) as Promise<T>;
  const name = await read<string>('NAME').catch(() => null);
  if (name !== 'HybridDeleGator')
    throw new Error(`TREASURY_ACCOUNT ${account} is not a deployed HybridDeleGator account`);
  const onChain = (await read<string>('owner')).toLowerCase();
  const expected = owner ?? `0x${'00'.repeat(20)}`;
  if (onChain !== expected)
    throw new Error(
      `TREASURY_ACCOUNT ${account} is owned by ${onChain}, not ${expected}: set TREASURY_OWNERS to the account's owner (empty when it has none)`,
    );
}

/** The passkeys a person enrolled, as P-256 keys (key id: credential id); other kinds of keys are left out. */
export async function enrolledP256Keys(
  db: Kysely<Database>,
  email: string,
  p256KeyOf: (credentialId: string, publicKey: string) => P256Key,
): Promise<P256Key[]> {
  const rows = await db
    .selectFrom('passkeys as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.credential_id', 'p.public_key'])
    .where('u.email', '=', email.trim().toLowerCase())
    .orderBy('p.created_at_ms', 'asc')
    .orderBy('p.id', 'asc')
    .execute();
  const keys: P256Key[] = [];
  for (const row of rows) {
    try {
      keys.push(p256KeyOf(row.credential_id, row.public_key));
    } catch {
      // Not P-256 (an RSA or Ed25519 passkey): the account's verifier cannot check it.
    }
  }
  return keys;
}

/**
 * `treasury-create-hybrid`: a HybridDeleGator whose keys are `keys` (passkeys) and whose owner is `owner` (or none),
 * deployed by the service's key if it has no code yet. Returns the configuration lines that adopt it.
 */
export async function createHybridAccount(
  deps: {
    client: ChainClient;
    config: EvmConfig;
    keys: Pick<ServiceKeys, 'treasury'>;
    env: NodeJS.ProcessEnv;
  },
  owner: Address | undefined,
  keys: readonly P256Key[],
): Promise<{ account: Address; lines: string[] }> {
  if (owner === undefined && keys.length === 0)
    throw new Error('a hybrid account needs an owner address or at least one P-256 passkey');
  const framework = parseFramework(deps.env, deps.config.chainId);
  const implementation = hybridImplementation(deps.env, deps.config.chainId);
  if (implementation === undefined)
    throw new Error(`set ${HYBRID_IMPL_VARIABLE} (deploy-smart-accounts prints it on a local chain)`);
  const service = deps.keys.treasury.address.toLowerCase() as Address;
  const { address, deployCall } = hybridAccount(
    framework.simpleFactory,
    implementation,
    owner,
    keys,
    service,
  );
  const code = await deps.client.getCode({ address });
  if (code === undefined || code === '0x') {
    const { wallet } = serviceWallet(deps.config, deps.keys);
    const hash = await wallet.sendTransaction(deployCall);
    const receipt = await deps.client.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
    if (receipt.status !== 'success') throw new Error(`deploying the hybrid account failed (${hash})`);
  }
  const lines = ['TREASURY_ACCOUNT_KIND=hybrid', `TREASURY_ACCOUNT=${address}`];
  lines.push(`TREASURY_OWNERS=${owner ?? ''}`);
  return { account: address, lines };
}

/** TREASURY_ALLOWANCE_START, or the set-up time recorded on the first preparation (kept from then on). */
async function allowanceStart(
  db: Kysely<Database>,
  configured: number | undefined,
  chainNowSeconds: number,
): Promise<number> {
  if (configured !== undefined) return configured;
  await db
    .insertInto('service_settings')
    .values({ key: ALLOWANCE_START_SETTING, value: String(chainNowSeconds) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('service_settings')
    .select('value')
    .where('key', '=', ALLOWANCE_START_SETTING)
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/** Step 3: the prepared delegation with the owners' signatures, checked against the configuration and stored. */
export async function grantDelegation(
  deps: { db: Kysely<Database>; client: ChainClient; config: EvmConfig; keys: Pick<ServiceKeys, 'treasury'> },
  signed: {
    delegation: PreparedDelegation['delegation'];
    /** Owners' EIP-712 signatures; for a hybrid account, a passkey's assertion over `digest` instead. */
    signatures: Array<{ signer: Address; signature: Hex } | { passkey: PasskeyAssertionJson }>;
  },
  nowMs: number,
): Promise<string> {
  const bounded = deps.config.bounded!;
  const salt = BigInt(signed.delegation.salt);
  const caveat = signed.delegation.caveats[0];
  const startSeconds = caveat === undefined ? 0 : decodeERC20TokenPeriodTransferTerms(caveat.terms).startDate;
  const expected = unsignedDelegation(
    bounded.framework,
    boundedAccount(bounded, deps.keys),
    deps.keys.treasury.address.toLowerCase() as Address,
    {
      usdc: deps.config.usdcAddress as Address,
      allowanceMicros: bounded.allowanceMicros,
      periodSeconds: bounded.periodSeconds,
      startSeconds,
    },
    salt,
  );
  const delegation: SignedDelegation = {
    ...signed.delegation,
    salt,
    signature: await grantSignature(signed.signatures),
  };
  return storeSignedDelegation(deps, delegation, expected, nowMs);
}

export interface SwitchPlan {
  /** What the service's key holds now (a hot deployment: its whole treasury). */
  floatMicros: bigint;
  /** What payments in flight still take from it. */
  owedMicros: bigint;
  /** What the service, running bounded, moves into the owners' account. */
  returnMicros: bigint;
}

/** What switching to bounded moves: the service's key keeps TREASURY_FLOAT_MAX and what it still owes. */
export async function switchPlan(deps: {
  db: Kysely<Database>;
  client: ChainClient;
  config: EvmConfig;
  keys: Pick<ServiceKeys, 'treasury'>;
}): Promise<SwitchPlan> {
  const [floatMicros, owedMicros] = await Promise.all([
    deps.client.readContract({
      address: deps.config.usdcAddress as Address,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [deps.keys.treasury.address],
    }),
    floatOwedMicros(deps.db),
  ]);
  const returnMicros = floatReturnAmount(floatMicros, deps.config.bounded!.floatMaxMicros, owedMicros);
  return { floatMicros, owedMicros, returnMicros };
}

/** The browser's AuthenticationResponseJSON, as much of it as the account's verifier reads. */
export interface PasskeyAssertionJson {
  id: string;
  response: { authenticatorData: string; clientDataJSON: string; signature: string };
}

/**
 * The account's signature over the delegation: the owners' in address order, or a passkey's assertion encoded for
 * the HybridDeleGator. Checked by the account itself (ERC-1271) before it is stored, whatever it is.
 */
async function grantSignature(
  parts: ReadonlyArray<{ signer: Address; signature: Hex } | { passkey: PasskeyAssertionJson }>,
): Promise<Hex> {
  const passkey = parts.find((p) => 'passkey' in p);
  if (passkey === undefined) return multiSigSignature(parts as Array<{ signer: Address; signature: Hex }>);
  const { encodeWebAuthnSignature } = await import('./passkey-signature.ts');
  const { id, response } = passkey.passkey;
  return encodeWebAuthnSignature({
    keyId: id,
    authenticatorData: new Uint8Array(Buffer.from(response.authenticatorData, 'base64url')),
    clientDataJSON: Buffer.from(response.clientDataJSON, 'base64url').toString('utf8'),
    signature: new Uint8Array(Buffer.from(response.signature, 'base64url')),
  });
}
