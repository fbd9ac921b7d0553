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
import { decodeERC20TokenPeriodTransferTerms } from '@metamask/delegation-core';
import type { Kysely } from 'kysely';
import { createWalletClient, defineChain, type Hex, http } from 'viem';
import type { Database } from '../../store/schema.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import type { ServiceKeys } from '../keys.ts';
import { usdcAbi } from '../token.ts';
import { ALLOWANCE_START_SETTING, boundedAccount, storeSignedDelegation } from './bounded.ts';
import { FRAMEWORK_VARIABLES, type FrameworkAddresses } from './bounded-config.ts';
import {
  type Address,
  delegationSalt,
  delegationTypedData,
  multiSigSignature,
  ownersAccount,
  type SignedDelegation,
  unsignedDelegation,
} from './delegation.ts';
import { floatOwedMicros, floatReturnAmount } from './float-return.ts';

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
  return { lines, addresses, entryPoint: environment.EntryPoint };
}

export interface PreparedDelegation {
  delegation: Omit<SignedDelegation, 'salt' | 'signature'> & { salt: string };
  typedData: ReturnType<typeof delegationTypedData>;
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
  if (code === undefined || code === '0x') {
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
  return {
    delegation: { ...delegation, salt: String(delegation.salt) },
    typedData: delegationTypedData(delegation, deps.config.chainId, bounded.framework.delegationManager),
    owners: bounded.owners,
    threshold: bounded.threshold,
  };
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
    signatures: Array<{ signer: Address; signature: Hex }>;
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
    signature: multiSigSignature(signed.signatures),
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
