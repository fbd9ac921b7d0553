// The only code that changes a balance. Every movement is one ledger transaction of two or more entries
// that sum to zero, applied with conditional updates so the database refuses an overdraft even if a caller's
// check was wrong. Callers run it inside the LedgerWriter's database transaction.
import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.ts';
import { assert } from '../errors.ts';
import type { AccountKind, Database } from '../store/schema.ts';

export interface Leg {
  accountId: string;
  /** Signed: negative leaves the account (debit), positive enters it (credit). Never zero. */
  amountMicros: bigint;
}

export interface TransferSpec {
  kind: string;
  referenceId: string | null;
  legs: Leg[];
  nowMs: number;
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

export async function postTransfer(trx: Kysely<Database>, spec: TransferSpec): Promise<string> {
  assertBalanced(spec.legs);
  const transactionId = newId('ltx');
  await trx
    .insertInto('ledger_transactions')
    .values(ledgerTransactionRow({ id: transactionId, ...spec }))
    .execute();
  // A fixed order (by account id) means two transfers never wait on each other's rows in opposite orders.
  const ordered = [...spec.legs].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  for (const leg of ordered) {
    if (!keepsRunningBalance(leg.accountId)) continue;
    await applyLeg(trx, leg);
  }
  await trx
    .insertInto('entries')
    .values(ordered.map((leg, index) => entryRow({ ...leg, transactionId, leg: index, nowMs: spec.nowMs })))
    .execute();
  return transactionId;
}

/** The rows a ledger transaction and its entries are stored as (postTransfer, and the batch writer). */
export function ledgerTransactionRow(t: {
  id: string;
  kind: string;
  referenceId: string | null;
  nowMs: number;
}) {
  return { id: t.id, kind: t.kind, reference_id: t.referenceId, created_at_ms: BigInt(t.nowMs) };
}

export function entryRow(e: {
  transactionId: string;
  leg: number;
  accountId: string;
  amountMicros: bigint;
  nowMs: number;
}) {
  return {
    transaction_id: e.transactionId,
    leg: BigInt(e.leg),
    account_id: e.accountId,
    amount_micros: e.amountMicros,
    created_at_ms: BigInt(e.nowMs),
  };
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

async function applyLeg(trx: Kysely<Database>, leg: Leg): Promise<void> {
  const isDebit = leg.amountMicros < 0n;
  const row = await trx
    .updateTable('accounts')
    .set((eb) => ({ balance_micros: eb('balance_micros', '+', leg.amountMicros) }))
    .where('id', '=', leg.accountId)
    .where((eb) => {
      const after = eb('balance_micros', '+', leg.amountMicros);
      if (!isDebit) return eb(after, '<=', BALANCE_MAX_MICROS);
      return eb.or([
        eb.and([eb('allow_negative', '=', 1n), eb(after, '>=', -BALANCE_MAX_MICROS)]),
        eb(after, '>=', 0n),
      ]);
    })
    .returning(['balance_micros', 'allow_negative'])
    .executeTakeFirst();
  if (row === undefined) return refuseLeg(trx, leg);
  // The pair of the conditional update: read back, the balance is still non-negative and within its bound.
  assert(row.allow_negative === 1n || row.balance_micros >= 0n, `${leg.accountId} went negative`);
  assert(
    row.balance_micros <= BALANCE_MAX_MICROS && row.balance_micros >= -BALANCE_MAX_MICROS,
    `${leg.accountId} passed the balance bound`,
  );
}

/** Why the conditional update matched no row: the account is missing (a bug), short of funds, or at its bound. */
async function refuseLeg(trx: Kysely<Database>, leg: Leg): Promise<never> {
  const account = await trx
    .selectFrom('accounts')
    .select('allow_negative')
    .where('id', '=', leg.accountId)
    .executeTakeFirst();
  assert(account !== undefined, `account ${leg.accountId} does not exist`);
  if (leg.amountMicros > 0n || account.allow_negative === 1n) throw new BalanceLimitError(leg.accountId);
  throw new InsufficientFundsError(leg.accountId);
}

/** Creates a wallet's accounts (available + hold), both starting at zero. */
export async function createWalletAccounts(trx: Kysely<Database>, walletId: string, withHold: boolean) {
  const rows: Array<{ id: string; wallet_id: string; kind: AccountKind }> = [
    { id: accountIds.available(walletId), wallet_id: walletId, kind: 'available' },
  ];
  if (withHold) rows.push({ id: accountIds.hold(walletId), wallet_id: walletId, kind: 'hold' });
  await trx
    .insertInto('accounts')
    .values(rows.map((r) => ({ ...r, balance_micros: 0n, allow_negative: 0n })))
    .execute();
}

export async function readBalances(db: Kysely<Database>, walletId: string) {
  const rows = await db
    .selectFrom('accounts')
    .select(['kind', 'balance_micros'])
    .where('id', 'in', walletAccountIds([walletId]))
    .execute();
  const available = rows.find((r) => r.kind === 'available')?.balance_micros ?? 0n;
  const held = rows.find((r) => r.kind === 'hold')?.balance_micros ?? 0n;
  // The pair of the write-side guard: balances read back are never negative.
  assert(available >= 0n && held >= 0n, `wallet ${walletId} has a negative balance`);
  return { availableMicros: available, heldMicros: held };
}
