// The bounded treasury at work (contract section 14): where the owners' account is, the delegation they signed
// (stored once verified on chain), and the refill of the service's float — queued as an outbox row of kind
// `refill` so it is signed, stored, broadcast, re-broadcast and fee-bumped exactly like a payout: after a crash the
// stored transaction is found or sent again, never a second redemption. One refill is in flight at a time, and
// it never lifts the float above TREASURY_FLOAT_MAX; the enforcer on chain caps it at the period's allowance
// whatever this code does.

import { decodeERC20TokenPeriodTransferTerms } from '@metamask/delegation-core';
import type { Kysely } from 'kysely';
import { hashTypedData } from 'viem';
import { newId } from '../../domain/ids.ts';
import type { Database } from '../../store/schema.ts';
import type { RailContext } from '../books.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import type { ServiceKeys } from '../keys.ts';
import { finishOutboxRow } from '../outbox-finish.ts';
import { expireHeldOnce, OWNERS_SIGNATURES_MAX_AGE_MS } from './held-payments.ts';

export { OWNERS_SIGNATURES_MAX_AGE_MS } from './held-payments.ts';

import { usdcAbi } from '../token.ts';
import type { BoundedConfig } from './bounded-config.ts';
import {
  type Address,
  type AllowanceState,
  delegationFromJson,
  delegationHash,
  delegationToJson,
  delegationTypedData,
  ownersAccount,
  ownersSigned,
  readAllowance,
  redeemCall,
  type SignedDelegation,
} from './delegation.ts';

export { floatReturnAmount, planFloatReturnOnce } from './float-return.ts';

/** When the set-up fixed the first period's start (TREASURY_ALLOWANCE_START unset): Unix seconds. */
export const ALLOWANCE_START_SETTING = 'treasury_allowance_start';
/** The float is refilled once it falls below this share of TREASURY_FLOAT_MAX (fewer, larger redemptions). */
const REFILL_BELOW_PERCENT = 50n;

/** The owners' account: the adopted one, or the service's own for these owners and threshold. */
export function boundedAccount(bounded: BoundedConfig, keys: Pick<ServiceKeys, 'treasury'>): Address {
  if (bounded.account !== undefined) return bounded.account;
  const service = keys.treasury.address.toLowerCase() as Address;
  return ownersAccount(bounded.framework, bounded.owners, bounded.threshold, service).address;
}

export interface StoredDelegation {
  id: string;
  delegation: SignedDelegation;
}

/** The shape a stored delegation must have to be used: this account, this service key, the configured caveat. */
export interface DelegationShape {
  account: Address;
  delegate: Address;
  usdc: Address;
  bounded: BoundedConfig;
}

/**
 * Pure: whether a stored delegation is the kind this configuration grants. Rows are only as trustworthy as the
 * database: one that is not (a forged or stale row) is passed over, and a redemption of it would be refused on
 * chain anyway — this keeps the service's rounds and readings from acting on it at all.
 */
export function hasShape(delegation: SignedDelegation, shape: DelegationShape): boolean {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const caveat = delegation.caveats[0];
  if (delegation.caveats.length !== 1 || caveat === undefined) return false;
  if (!same(delegation.delegator, shape.account) || !same(delegation.delegate, shape.delegate)) return false;
  if (!same(caveat.enforcer, shape.bounded.framework.periodTransferEnforcer)) return false;
  try {
    const terms = decodeERC20TokenPeriodTransferTerms(caveat.terms);
    return (
      same(terms.tokenAddress, shape.usdc) &&
      terms.periodAmount === shape.bounded.allowanceMicros &&
      BigInt(terms.periodDuration) === BigInt(shape.bounded.periodSeconds)
    );
  } catch {
    return false;
  }
}

/** How many active rows are looked at for one of the right shape (newest first). */
const ACTIVE_ROWS_MAX = 16;

/** Delegation hashes whose owners' signature the account accepted: checked once per process, not per read. */
const signedByOwners = new Set<string>();
const SIGNED_CACHE_MAX = 64;

/**
 * The newest delegation not known revoked that has the configured shape and that the account itself accepts as
 * signed by its owners (ERC-1271, read from the chain), or null. A row the owners did not sign — forged in the
 * database — is passed over: the service neither redeems it nor counts its allowance.
 */
export async function activeDelegation(
  db: Kysely<Database>,
  client: ChainClient,
  config: EvmConfig,
  shape: DelegationShape,
): Promise<StoredDelegation | null> {
  const rows = await db
    .selectFrom('treasury_delegations')
    .select(['id', 'delegation_json'])
    .where('chain_id', '=', BigInt(config.chainId))
    .where('account', '=', shape.account)
    .where('status', '=', 'active')
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(ACTIVE_ROWS_MAX)
    .execute();
  for (const row of rows) {
    let delegation: SignedDelegation;
    try {
      delegation = delegationFromJson(row.delegation_json);
    } catch {
      continue;
    }
    if (!hasShape(delegation, shape)) continue;
    if (await isOwnersDelegation(client, config, delegation)) return { id: row.id, delegation };
  }
  return null;
}

async function isOwnersDelegation(
  client: ChainClient,
  config: EvmConfig,
  delegation: SignedDelegation,
): Promise<boolean> {
  const hash = delegationHash(delegation);
  if (signedByOwners.has(hash)) return true;
  const digest = hashTypedData(
    delegationTypedData(delegation, config.chainId, config.bounded!.framework.delegationManager),
  );
  if (!(await ownersSigned(client, delegation, digest))) return false;
  if (signedByOwners.size >= SIGNED_CACHE_MAX) signedByOwners.clear();
  signedByOwners.add(hash);
  return true;
}

/** The shape this configuration's delegations have. */
export function shapeOf(config: EvmConfig, keys: Pick<ServiceKeys, 'treasury'>): DelegationShape {
  const bounded = config.bounded!;
  return {
    account: boundedAccount(bounded, keys),
    delegate: keys.treasury.address.toLowerCase() as Address,
    usdc: config.usdcAddress as Address,
    bounded,
  };
}

export class DelegationRefused extends Error {}

/**
 * Stores a delegation the owners signed, after checking it is the one this configuration asks for (from the
 * account, to the service's key, the period caveat of the configured allowance) and that the account itself
 * accepts the owners' signature.
 */
export async function storeSignedDelegation(
  deps: { db: Kysely<Database>; client: ChainClient; config: EvmConfig; keys: Pick<ServiceKeys, 'treasury'> },
  delegation: SignedDelegation,
  expected: Omit<SignedDelegation, 'signature'>,
  nowMs: number,
): Promise<string> {
  const bounded = deps.config.bounded!;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const caveat = delegation.caveats[0];
  const wanted = expected.caveats[0]!;
  if (
    !same(delegation.delegator, expected.delegator) ||
    !same(delegation.delegate, expected.delegate) ||
    delegation.caveats.length !== 1 ||
    caveat === undefined ||
    !same(caveat.enforcer, wanted.enforcer) ||
    !same(caveat.terms, wanted.terms) ||
    !same(delegation.authority, expected.authority)
  )
    throw new DelegationRefused('this is not the delegation the configuration asks for; prepare it again');
  const digest = hashTypedData(
    delegationTypedData(delegation, deps.config.chainId, bounded.framework.delegationManager),
  );
  if (!(await ownersSigned(deps.client, delegation, digest)))
    throw new DelegationRefused(
      'the account does not accept these signatures (too few owners, or not theirs)',
    );
  const id = newId('tdl');
  const start = BigInt(decodeERC20TokenPeriodTransferTerms(caveat.terms).startDate);
  await deps.db
    .insertInto('treasury_delegations')
    .values({
      id,
      chain_id: BigInt(deps.config.chainId),
      account: delegation.delegator.toLowerCase(),
      delegate: delegation.delegate.toLowerCase(),
      delegation_hash: delegationHash(delegation),
      delegation_json: delegationToJson(delegation),
      allowance_micros: bounded.allowanceMicros,
      period_seconds: BigInt(bounded.periodSeconds),
      start_seconds: start,
      status: 'active',
      created_at_ms: BigInt(nowMs),
      revoked_at_ms: null,
    })
    .execute();
  return id;
}

export interface BoundedReading {
  account: Address;
  accountMicros: bigint;
  floatMicros: bigint;
  /** null while no delegation is stored. */
  allowance: AllowanceState | null;
}

/** The account, the float and the allowance as the chain has them now. */
export async function readBounded(
  client: ChainClient,
  config: EvmConfig,
  keys: Pick<ServiceKeys, 'treasury'>,
  db: Kysely<Database>,
): Promise<BoundedReading> {
  const bounded = config.bounded!;
  const account = boundedAccount(bounded, keys);
  const usdc = config.usdcAddress as Address;
  const balanceOf = (address: Address) =>
    client.readContract({ address: usdc, abi: usdcAbi, functionName: 'balanceOf', args: [address] });
  const [accountMicros, floatMicros, stored, block] = await Promise.all([
    balanceOf(account),
    balanceOf(keys.treasury.address),
    activeDelegation(db, client, config, shapeOf(config, keys)),
    client.getBlock({ blockTag: 'latest' }),
  ]);
  const allowance =
    stored === null
      ? null
      : await readAllowance(client, bounded.framework, stored.delegation, block.timestamp);
  return { account, accountMicros, floatMicros, allowance };
}

/** Pure: how much a refill should take now (0: none), never above the float's cap nor what the chain allows. */
export function refillAmount(reading: BoundedReading, floatMaxMicros: bigint, queuedMicros: bigint): bigint {
  if (reading.allowance === null || reading.allowance.revoked) return 0n;
  const short = reading.floatMicros < (floatMaxMicros * REFILL_BELOW_PERCENT) / 100n;
  if (!short && queuedMicros <= reading.floatMicros) return 0n;
  let amount = floatMaxMicros - reading.floatMicros;
  if (amount > reading.allowance.remainingMicros) amount = reading.allowance.remainingMicros;
  if (amount > reading.accountMicros) amount = reading.accountMicros;
  return amount > 0n ? amount : 0n;
}

/** Queues a refill of the float when it is low and none is in flight; the amount queued (0n: none). */
export async function planRefillOnce(deps: {
  ctx: RailContext;
  client: ChainClient;
  config: EvmConfig;
  keys: Pick<ServiceKeys, 'treasury'>;
}): Promise<bigint> {
  const bounded = deps.config.bounded;
  if (bounded === null) return 0n;
  const db = deps.ctx.store.db;
  const inFlight = await db
    .selectFrom('chain_outbox')
    .select('id')
    .where('kind', '=', 'refill')
    .where('status', 'in', ['queued', 'sent'])
    .executeTakeFirst();
  if (inFlight !== undefined) return 0n;
  const reading = await readBounded(deps.client, deps.config, deps.keys, db);
  const queued = await db
    .selectFrom('chain_outbox')
    .select((eb) => eb.fn.sum<bigint | string | null>('amount_micros').as('n'))
    .where('kind', '=', 'payout')
    .where('status', '=', 'queued')
    .executeTakeFirst();
  const amount = refillAmount(reading, bounded.floatMaxMicros, BigInt(queued?.n ?? 0));
  if (amount === 0n) return 0n;
  const stored = await activeDelegation(db, deps.client, deps.config, shapeOf(deps.config, deps.keys));
  if (stored === null) return 0n;
  await queueRefill(deps.ctx, deps.config, stored, reading.account, deps.keys.treasury.address, amount);
  return amount;
}

async function queueRefill(
  ctx: RailContext,
  config: EvmConfig,
  stored: StoredDelegation,
  account: Address,
  float: Address,
  amountMicros: bigint,
): Promise<void> {
  const framework = config.bounded!.framework;
  const usdc = config.usdcAddress as Address;
  const nowMs = BigInt(ctx.clock.nowMs());
  await ctx.writer.run(async (trx) => {
    // Re-checked in the writing transaction: two rounds (or instances) never queue two refills.
    const inFlight = await trx
      .selectFrom('chain_outbox')
      .select('id')
      .where('kind', '=', 'refill')
      .where('status', 'in', ['queued', 'sent'])
      .executeTakeFirst();
    if (inFlight !== undefined) return;
    await trx
      .insertInto('chain_outbox')
      .values({
        id: newId('obx'),
        kind: 'refill',
        transaction_id: null,
        wallet_id: null,
        from_address: account,
        to_address: float.toLowerCase(),
        amount_micros: amountMicros,
        status: 'queued',
        tx_hashes_json: '[]',
        // The call itself, fixed when queued: the sender signs exactly this redemption (and re-signs only its fees).
        authorization_json: JSON.stringify(
          redeemCall(framework, stored.delegation, usdc, float, amountMicros),
        ),
        authorization_nonce: null,
        attempts: 0n,
        created_at_ms: nowMs,
        updated_at_ms: nowMs,
      })
      .execute();
  });
}

/** Fails the payments the owners did not sign in time (their money back, an agent's held one expired); how many. */
export async function expireUnsignedOnce(ctx: RailContext): Promise<number> {
  const before = BigInt(ctx.clock.nowMs() - OWNERS_SIGNATURES_MAX_AGE_MS);
  const rows = await ctx.store.db
    .selectFrom('chain_outbox')
    .selectAll()
    .where('status', '=', 'awaiting_signatures')
    .where('created_at_ms', '<', before)
    .limit(32)
    .execute();
  let expired = 0;
  for (const row of rows) {
    const ending = {
      kind: 'failed' as const,
      reason: 'the owners did not sign it within 7 days',
      txHash: null,
      blockNumber: null,
    };
    if (await finishOutboxRow(ctx, row, ending)) expired += 1;
  }
  return expired + (await expireHeldOnce(ctx));
}
