// Gives one wallet a long history for the benchmark: `count` completed payments of 1 micro-unit, dated over the
// 30 days before the last 24 hours (the wallet's age, outside its daily window), each with its ledger
// transaction and entries, written straight into the database in a few set-based statements. One funding
// transfer from the rail puts the money back, so the wallet's balance is unchanged and the ledger still
// verifies (balances equal entries, spent total equals payments).
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface HistoryTarget {
  databaseUrl: string | undefined;
  schema: string | undefined;
  dataDir: string;
}

export async function addHistory(target: HistoryTarget, walletId: string, count: number): Promise<void> {
  const startMs = Date.now() - 31 * DAY_MS;
  const statements = historyStatements(walletId, count, startMs, target.databaseUrl === undefined);
  if (target.databaseUrl === undefined) {
    const db = new SqliteDatabase(join(target.dataDir, 'agent-wallet.sqlite'), { timeout: 60_000 });
    db.transaction(() => {
      for (const statement of statements) db.exec(statement);
    }).immediate();
    db.close();
    return;
  }
  const client = new pg.Client({
    connectionString: target.databaseUrl,
    options: `-c search_path=${target.schema}`,
  });
  await client.connect();
  try {
    await client.query('begin');
    for (const statement of statements) await client.query(statement);
    await client.query('commit');
  } finally {
    await client.end();
  }
}

/** Rows n = 1..count; SQLite numbers them with a recursive CTE, PostgreSQL with generate_series. */
function historyStatements(walletId: string, count: number, startMs: number, sqlite: boolean): string[] {
  const series = sqlite
    ? `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${count})`
    : `with s(n) as (select generate_series(1::bigint, ${count}::bigint))`;
  // Spread over 30 days, all older than 24 hours.
  const at = `(${startMs} + n * ${Math.floor((30 * DAY_MS) / count)})`;
  const account = `'${walletId}:available'`;
  const id = (prefix: string) => (sqlite ? `'${prefix}_hist_' || n` : `'${prefix}_hist_' || n::text`);
  return [
    `${series} insert into ledger_transactions (id, kind, reference_id, created_at_ms)
       select ${id('ltx')}, 'payment_external', ${id('tx')}, ${at} from s`,
    `${series} insert into entries (transaction_id, leg, account_id, amount_micros, created_at_ms)
       select ${id('ltx')}, 0, ${account}, -1, ${at} from s`,
    `${series} insert into entries (transaction_id, leg, account_id, amount_micros, created_at_ms)
       select ${id('ltx')}, 1, 'rail:sandbox', 1, ${at} from s`,
    `${series} insert into transactions (id, wallet_id, user_id, type, status, amount_micros, to_address,
       counterparty_wallet_id, memo, reason, rail, tx_hash, rejection_reason, violations_json, initiated_by,
       idempotency_key, expires_at_ms, related_transaction_id, created_at_ms, updated_at_ms)
       select ${id('tx')}, w.id, w.user_id, 'payment', 'completed', 1, '0x${'ab'.repeat(20)}', null, null, null,
         'sandbox', null, null, null, 'key:history', null, null, null, ${at}, ${at}
       from s cross join wallets w where w.id = '${walletId}'`,
    `insert into ledger_transactions (id, kind, reference_id, created_at_ms) values ('ltx_hist_fund', 'deposit', null, ${startMs})`,
    `insert into entries (transaction_id, leg, account_id, amount_micros, created_at_ms) values
       ('ltx_hist_fund', 0, 'rail:sandbox', -${count}, ${startMs}), ('ltx_hist_fund', 1, ${account}, ${count}, ${startMs})`,
    `update wallets set spent_micros = spent_micros + ${count} where id = '${walletId}'`,
  ];
}
