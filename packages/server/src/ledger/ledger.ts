// The only code that changes a balance. Every movement is one ledger transaction of two or more entries
// that sum to zero, applied with conditional updates so the database refuses an overdraft even if a caller's
// check was wrong: one transfer at a time (postTransfer), or a whole batch of money commands' transfers, decided
// in memory, as steps of the batch's write plan (ledgerWriteSteps). Callers run both inside the LedgerWriter's
// database transaction.
import { type Kysely, sql } from 'kysely';
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
import type { LedgerEffects } from '../domain/money/batch-state.ts';
import { assert } from '../errors.ts';
import type { Dialect } from '../store/db.ts';
import type { AccountKind, Database } from '../store/schema.ts';
import { valuesTable } from '../store/values-table.ts';
import { insertRows, type WriteStep } from '../store/write-plan.ts';

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

/**
 * A batch's ledger writes (services/money/batch.ts decides them in memory, domain/money/batch-state.ts
 * `transfer`): its ledger transactions, their entries, and every balance change in one guarded statement. Steps
 * of the batch's one write plan (store/write-plan.ts): a handful of statements whatever the batch's size.
 */
export function ledgerWriteSteps(
  trx: Kysely<Database>,
  effects: LedgerEffects,
  dialect: Dialect,
): WriteStep[] {
  const steps: WriteStep[] = [];
  if (effects.ledgerTransactions.length > 0) {
    assert(effects.entries.length >= 2 * effects.ledgerTransactions.length, 'every transfer has two legs');
    steps.push({
      what: 'ledger_transactions',
      query: insertRows(dialect, 'ledger_transactions', effects.ledgerTransactions.map(ledgerTransactionRow)),
    });
    steps.push({ what: 'entries', query: insertRows(dialect, 'entries', effects.entries.map(entryRow)) });
  }
  const balances = balanceDeltaStep(trx, effects.balanceDeltas, dialect);
  if (balances !== undefined) steps.push(balances);
  return steps;
}

/** The per-account changes a batch applies in one statement, as the table `v(id, delta)`. */
const ACCOUNT_DELTA = [
  ['id', 'text'],
  ['delta', 'bigint'],
] as const;

/**
 * Every balance change of the batch in one guarded statement. The in-memory decision checked each leg; the
 * database checks the net change again, and every account must match (the pair of the assertion).
 */
function balanceDeltaStep(
  trx: Kysely<Database>,
  deltas: ReadonlyMap<string, bigint>,
  dialect: Dialect,
): WriteStep | undefined {
  const changed = [...deltas].filter(([, delta]) => delta !== 0n);
  if (changed.length === 0) return undefined;
  const query = sql`
    update accounts set balance_micros = accounts.balance_micros + v.delta
    from ${valuesTable(changed, ACCOUNT_DELTA, dialect)}
    where accounts.id = v.id
      and accounts.balance_micros + v.delta >= 0
      and accounts.balance_micros + v.delta <= ${BALANCE_MAX_MICROS}
    returning accounts.id`.compile(trx);
  return { what: 'a guarded balance update', query, rowsExpected: changed.length };
}

/** The rows a ledger transaction and its entries are stored as (postTransfer, and ledgerWriteSteps). */
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
