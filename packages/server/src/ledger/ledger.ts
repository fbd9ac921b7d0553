// The only code that changes a balance. Every movement is one ledger transaction of two or more entries
// that sum to zero, applied with conditional updates so the database refuses an overdraft even if a caller's
// check was wrong. Callers run it inside the LedgerWriter's database transaction.
import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.ts';
import {
  accountIds,
  assertBalanced,
  BALANCE_MAX_MICROS,
  BalanceLimitError,
  InsufficientFundsError,
  keepsRunningBalance,
  type Leg,
  walletAccountIds,
} from '../domain/money/accounts.ts';
import { assert } from '../errors.ts';
import type { AccountKind, Database } from '../store/schema.ts';

export interface TransferSpec {
  kind: string;
  referenceId: string | null;
  legs: Leg[];
  nowMs: number;
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
