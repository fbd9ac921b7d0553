// `agent-wallet verify-ledger`: recomputes every balance from the entries and checks every transaction sums
// to zero, that no guarded account is negative, and that each hold account equals its pending approvals.
import type { Kysely } from 'kysely';
import { formatMicros } from '../domain/money.ts';
import type { Database } from '../store/schema.ts';

export interface LedgerReport {
  ok: boolean;
  accounts: number;
  transactions: number;
  problems: string[];
}

/** Problems reported at most; a badly broken ledger should not print millions of lines. */
const PROBLEMS_MAX = 100;

export async function verifyLedger(db: Kysely<Database>): Promise<LedgerReport> {
  const problems: string[] = [];
  const report = (problem: string) => {
    if (problems.length < PROBLEMS_MAX) problems.push(problem);
  };
  const accounts = await checkAccounts(db, report);
  const transactions = await checkTransactions(db, report);
  await checkHolds(db, report);
  return { ok: problems.length === 0, accounts, transactions, problems };
}

async function checkAccounts(db: Kysely<Database>, report: (p: string) => void): Promise<number> {
  const accounts = await db
    .selectFrom('accounts')
    .select(['id', 'balance_micros', 'allow_negative'])
    .execute();
  const sums = await db
    .selectFrom('entries')
    .select((eb) => ['account_id', eb.fn.sum<bigint>('amount_micros').as('total')])
    .groupBy('account_id')
    .execute();
  const sumByAccount = new Map(sums.map((s) => [s.account_id, BigInt(s.total)]));
  for (const account of accounts) {
    const fromEntries = sumByAccount.get(account.id) ?? 0n;
    if (fromEntries !== account.balance_micros) {
      report(
        `account ${account.id}: stored balance ${formatMicros(account.balance_micros)} but entries sum to ${formatMicros(fromEntries)}`,
      );
    }
    if (account.allow_negative !== 1n && account.balance_micros < 0n) {
      report(`account ${account.id}: negative balance ${formatMicros(account.balance_micros)}`);
    }
    sumByAccount.delete(account.id);
  }
  for (const orphan of sumByAccount.keys()) report(`entries reference unknown account ${orphan}`);
  return accounts.length;
}

async function checkTransactions(db: Kysely<Database>, report: (p: string) => void): Promise<number> {
  const totals = await db
    .selectFrom('ledger_transactions as t')
    .leftJoin('entries as e', 'e.transaction_id', 't.id')
    .select((eb) => [
      't.id',
      eb.fn.coalesce(eb.fn.sum<bigint>('e.amount_micros'), eb.lit(0)).as('total'),
      eb.fn.count<bigint>('e.leg').as('legs'),
    ])
    .groupBy('t.id')
    .execute();
  for (const t of totals) {
    if (BigInt(t.total) !== 0n)
      report(`transaction ${t.id}: entries sum to ${formatMicros(BigInt(t.total))}, not zero`);
    if (BigInt(t.legs) < 2n) report(`transaction ${t.id}: has ${t.legs} entries, needs at least 2`);
  }
  return totals.length;
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
