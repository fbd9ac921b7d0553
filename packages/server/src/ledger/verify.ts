// `agent-wallet verify-ledger`: recomputes every balance from the entries and checks every transaction sums
// to zero, that no guarded account is negative, and that each hold account equals its pending approvals.
import { type Kysely, sql } from 'kysely';
import { formatMicros } from '../domain/money.ts';
import type { Store } from '../store/db.ts';
import type { Database } from '../store/schema.ts';

export interface LedgerReport {
  ok: boolean;
  accounts: number;
  transactions: number;
  problems: string[];
}

/** Problems reported at most; a badly broken ledger should not print millions of lines. */
const PROBLEMS_MAX = 100;

/**
 * Reads one consistent snapshot, so it is safe on a live database: a payment committed between two of its
 * queries can no longer make the entries and the balances disagree (a false "BROKEN" under writes). PostgreSQL:
 * a read-only REPEATABLE READ transaction. SQLite in WAL mode: one read transaction sees one snapshot.
 */
export async function verifyLedger(store: Pick<Store, 'db' | 'dialect'>): Promise<LedgerReport> {
  const transaction =
    store.dialect === 'postgres'
      ? store.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only')
      : store.db.transaction();
  return transaction.execute((trx) => verifySnapshot(trx));
}

async function verifySnapshot(db: Kysely<Database>): Promise<LedgerReport> {
  const problems: string[] = [];
  const report = (problem: string) => {
    if (problems.length < PROBLEMS_MAX) problems.push(problem);
  };
  const accounts = await checkAccounts(db, report);
  const transactions = await checkTransactions(db, report);
  await checkHolds(db, report);
  await checkSpentTotals(db, report);
  await checkSpendingWindows(db, report);
  return { ok: problems.length === 0, accounts, transactions, problems };
}

/**
 * Accounts whose stored balance differs from the sum of their entries, or that are negative when they may not
 * be: found in SQL, so memory stays bounded by PROBLEMS_MAX whatever the ledger's size.
 */
async function checkAccounts(db: Kysely<Database>, report: (p: string) => void): Promise<number> {
  const entrySums = db
    .selectFrom('entries')
    .select((eb) => ['account_id', eb.fn.sum<bigint>('amount_micros').as('total')])
    .groupBy('account_id')
    .as('s');
  const wrong = await db
    .selectFrom('accounts as a')
    .leftJoin(entrySums, 's.account_id', 'a.id')
    .select((eb) => [
      'a.id',
      'a.balance_micros',
      'a.allow_negative',
      eb.fn.coalesce('s.total', eb.lit(0)).as('total'),
    ])
    .where(
      sql<boolean>`a.allow_negative <> 1 and (a.balance_micros <> coalesce(s.total, 0) or a.balance_micros < 0)`,
    )
    .limit(PROBLEMS_MAX)
    .execute();
  for (const account of wrong) {
    const fromEntries = BigInt(account.total);
    if (fromEntries !== account.balance_micros) {
      report(
        `account ${account.id}: stored balance ${formatMicros(account.balance_micros)} but entries sum to ${formatMicros(fromEntries)}`,
      );
    }
    if (account.allow_negative !== 1n && account.balance_micros < 0n) {
      report(`account ${account.id}: negative balance ${formatMicros(account.balance_micros)}`);
    }
  }
  const orphans = await db
    .selectFrom('entries as e')
    .leftJoin('accounts as a', 'a.id', 'e.account_id')
    .select('e.account_id')
    .distinct()
    .where('a.id', 'is', null)
    .limit(PROBLEMS_MAX)
    .execute();
  for (const orphan of orphans) report(`entries reference unknown account ${orphan.account_id}`);
  const counted = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

/** Ledger transactions whose entries do not sum to zero or that have fewer than two legs, found in SQL. */
async function checkTransactions(db: Kysely<Database>, report: (p: string) => void): Promise<number> {
  const wrong = await db
    .selectFrom('ledger_transactions as t')
    .leftJoin('entries as e', 'e.transaction_id', 't.id')
    .select((eb) => [
      't.id',
      eb.fn.coalesce(eb.fn.sum<bigint>('e.amount_micros'), eb.lit(0)).as('total'),
      eb.fn.count<bigint>('e.leg').as('legs'),
    ])
    .groupBy('t.id')
    .having(sql<boolean>`coalesce(sum(e.amount_micros), 0) <> 0 or count(e.leg) < 2`)
    .limit(PROBLEMS_MAX)
    .execute();
  for (const t of wrong) {
    if (BigInt(t.total) !== 0n)
      report(`transaction ${t.id}: entries sum to ${formatMicros(BigInt(t.total))}, not zero`);
    if (BigInt(t.legs) < 2n) report(`transaction ${t.id}: has ${t.legs} entries, needs at least 2`);
  }
  const counted = await db
    .selectFrom('ledger_transactions')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

async function checkHolds(db: Kysely<Database>, report: (p: string) => void): Promise<void> {
  const holds = await db
    .selectFrom('accounts')
    .select(['id', 'wallet_id', 'balance_micros'])
    .where('kind', '=', 'hold')
    .execute();
  const pending = await db
    .selectFrom('transactions')
    .select((eb) => ['wallet_id', eb.fn.sum<bigint>('amount_micros').as('total')])
    .where('status', '=', 'pending')
    .groupBy('wallet_id')
    .execute();
  const pendingByWallet = new Map(pending.map((p) => [p.wallet_id, BigInt(p.total)]));
  for (const hold of holds) {
    const expected = pendingByWallet.get(hold.wallet_id ?? '') ?? 0n;
    if (expected !== hold.balance_micros) {
      report(
        `hold ${hold.id}: holds ${formatMicros(hold.balance_micros)} but pending approvals total ${formatMicros(expected)}`,
      );
    }
  }
}

/** Each wallet's running spent total (what total caps are checked against) equals the sum of its payments. */
async function checkSpentTotals(db: Kysely<Database>, report: (p: string) => void): Promise<void> {
  const wrong = await sql<{ id: string; spent_micros: bigint; total: bigint | string }>`
    select w.id, w.spent_micros, coalesce(s.total, 0) as total from wallets w
    left join (
      select wallet_id, sum(amount_micros) as total from transactions
      where type = 'payment' and status in ('completed', 'processing', 'pending') group by wallet_id
    ) s on s.wallet_id = w.id
    where w.spent_micros <> coalesce(s.total, 0)
    limit ${PROBLEMS_MAX}`.execute(db);
  for (const wallet of wrong.rows) {
    report(
      `wallet ${wallet.id}: spent total ${formatMicros(wallet.spent_micros)} but its payments sum to ${formatMicros(BigInt(wallet.total))}`,
    );
  }
}

/**
 * Each kept spending window (migration 0010) equals the sum and count of the payments it covers: those that
 * count as spending, created after its through_ms - span_ms.
 */
async function checkSpendingWindows(db: Kysely<Database>, report: (p: string) => void): Promise<void> {
  const covered = sql`where t.wallet_id = sw.wallet_id and t.created_at_ms > sw.through_ms - sw.span_ms
    and t.type = 'payment' and t.status in ('completed', 'processing', 'pending')`;
  const wrong = await sql<{
    wallet_id: string;
    span_ms: bigint;
    spent_micros: bigint;
    payments: bigint;
    total: bigint | string;
    n: bigint | string;
  }>`
    select * from (
      select sw.wallet_id, sw.span_ms, sw.spent_micros, sw.payments,
        (select coalesce(sum(t.amount_micros), 0) from transactions t ${covered}) as total,
        (select count(*) from transactions t ${covered}) as n
      from spending_windows sw
    ) w
    where w.spent_micros <> w.total or w.payments <> w.n
    limit ${PROBLEMS_MAX}`.execute(db);
  for (const w of wrong.rows) {
    report(
      `wallet ${w.wallet_id}: its ${Number(w.span_ms) / 3_600_000}-hour window keeps ${formatMicros(w.spent_micros)} in ${w.payments} payments but they sum to ${formatMicros(BigInt(w.total))} in ${w.n}`,
    );
  }
}
