// Accounts and the rules every movement of money keeps, as pure data and checks: the ids of a wallet's accounts,
// the balance bound, and a balanced transfer. The ledger (ledger/ledger.ts) applies them to the database and the
// batch deciders (batch-state.ts) to their in-memory balances.
import { assert } from '../../errors.ts';

export interface Leg {
  accountId: string;
  /** Signed: negative leaves the account (debit), positive enters it (credit). Never zero. */
  amountMicros: bigint;
}

/** Thrown when a debit would take a non-negative account below zero; the enclosing operation rolls back. */
export class InsufficientFundsError extends Error {
  readonly accountId: string;
  constructor(accountId: string) {
    super(`insufficient funds in ${accountId}`);
    this.name = 'InsufficientFundsError';
    this.accountId = accountId;
  }
}

/**
 * Thrown when a leg would take an account's balance past BALANCE_MAX_MICROS either way (a credit above it, or a
 * rail account that may go negative below its negation): a clear 400, never a silent overflow.
 */
export class BalanceLimitError extends Error {
  readonly accountId: string;
  constructor(accountId: string) {
    super(`the balance of ${accountId} would pass the maximum`);
    this.name = 'BalanceLimitError';
    this.accountId = accountId;
  }
}

/**
 * No balance passes 10^17 micro-units (100 billion USDC) in either direction. With one movement at most
 * 10^15 (the contract's 1,000,000,000 USDC), `balance + amount` stays far inside a signed 64-bit integer, so
 * SQLite never turns a balance into a float and PostgreSQL's bigint never overflows.
 */
export const BALANCE_MAX_MICROS = 100_000_000_000_000_000n;

export const LEGS_MAX = 8;

const RAIL_ACCOUNT_PREFIX = 'rail:';

/** A wallet's accounts are its id and one of these (queries that join by wallet build the ids in SQL). */
export const ACCOUNT_SUFFIX = { available: ':available', hold: ':hold' } as const;

/** Account ids are derived from the wallet, so a movement needs no lookup to find them. */
export const accountIds = {
  available: (walletId: string) => `${walletId}${ACCOUNT_SUFFIX.available}`,
  hold: (walletId: string) => `${walletId}${ACCOUNT_SUFFIX.hold}`,
  external: (rail: string) => `${RAIL_ACCOUNT_PREFIX}${rail}`,
};

/**
 * Both accounts of each wallet, by their derived ids: reads by primary key. accounts has no index on wallet_id,
 * so `where wallet_id in (…)` read every account (SQLite planned it as SCAN accounts) in every batch.
 */
export function walletAccountIds(walletIds: readonly string[]): string[] {
  return walletIds.flatMap((id) => [accountIds.available(id), accountIds.hold(id)]);
}

/**
 * A rail account stands for the outside world: it may go negative, nothing is checked against its balance, and
 * every external payment touches it. Keeping its running balance would make that one row a lock all external
 * payments queue on, so its balance is the sum of its entries (verify-ledger reports it) and its row is never
 * updated. Every other account keeps a running balance guarded by the conditional update below.
 */
export function keepsRunningBalance(accountId: string): boolean {
  return !accountId.startsWith(RAIL_ACCOUNT_PREFIX);
}

/** Debits and credits of one transaction sum to zero, touch distinct accounts, and none is zero. */
export function assertBalanced(legs: Leg[]): void {
  assert(
    legs.length >= 2 && legs.length <= LEGS_MAX,
    `a transfer has 2..${LEGS_MAX} legs, got ${legs.length}`,
  );
  let sumMicros = 0n;
  const seen = new Set<string>();
  for (const leg of legs) {
    assert(leg.amountMicros !== 0n, `zero leg on ${leg.accountId}`);
    assert(!seen.has(leg.accountId), `account ${leg.accountId} appears twice in one transfer`);
    seen.add(leg.accountId);
    sumMicros += leg.amountMicros;
  }
  assert(sumMicros === 0n, `transfer legs sum to ${sumMicros}, not zero`);
}
