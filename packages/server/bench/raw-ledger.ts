// The raw ledger ceiling: what the storage itself sustains for durable double-entry transfers, one transaction
// each, in a plain loop with no HTTP, no auth and no policies. Same schema (the service's migrations), same
// SQLite pragmas (WAL, synchronous=FULL), and on PostgreSQL as many connections as the service's pool, each
// moving money between its own two accounts (the ceiling: no row contention). Each transfer is what the
// service's ledger writes for a payment: a ledger transaction, two guarded balance updates, two entries.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openSqliteFile, openStore } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';

const SEED_MICROS = 1_000_000_000_000n;

export async function rawLedgerCeiling(
  store: { databaseUrl: string | undefined; schema: string },
  seconds: number,
  connections: number,
): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-raw-'));
  const opened = await openStore({
    databaseUrl: store.databaseUrl,
    dataDir,
    postgresSchema: store.databaseUrl === undefined ? undefined : store.schema,
    postgresPoolSizeMax: 2,
    sqliteBusyTimeoutMs: 5_000,
    connectTimeoutMs: 5_000,
    statementTimeoutMs: 0,
    onConnectionError: () => undefined,
  });
  await migrateToLatest(opened.db, opened.schema);
  await opened.close();
  try {
    if (store.databaseUrl === undefined) return sqliteLoop(join(dataDir, 'agent-wallet.sqlite'), seconds);
    return await postgresLoops(store.databaseUrl, store.schema, seconds, connections);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const SETUP = [`insert into users values ('usr_raw', 'raw@example.test', 'x', 0, 0)`];
const accountSql = (id: string) => [
  `insert into wallets (id, user_id, kind, label, address, version, spent_micros, created_at_ms, updated_at_ms)
     values ('${id}', 'usr_raw', 'agent', 'raw', '0x${id.padEnd(40, '0')}', 0, 0, 0, 0)`,
  `insert into accounts values ('${id}:available', '${id}', 'available', ${SEED_MICROS}, 0)`,
];
const INSERT_TX =
  'insert into ledger_transactions (id, kind, reference_id, created_at_ms) values ($1, $2, null, $3)';
const DEBIT =
  'update accounts set balance_micros = balance_micros - $1 where id = $2 and balance_micros - $1 >= 0 returning balance_micros';
const CREDIT =
  'update accounts set balance_micros = balance_micros + $1 where id = $2 returning balance_micros';
const INSERT_ENTRIES = `insert into entries (transaction_id, leg, account_id, amount_micros, created_at_ms)
  values ($1, 0, $2, $3, $5), ($1, 1, $4, $6, $5)`;

function sqliteLoop(file: string, seconds: number): number {
  const db = openSqliteFile(file, 5_000);
  for (const statement of [...SETUP, ...accountSql('raw_a'), ...accountSql('raw_b')]) db.exec(statement);
  // The same statements as PostgreSQL's below, with positional parameters.
  const insertTx = db.prepare(INSERT_TX.replace(/\$\d/g, '?'));
  const debit = db.prepare(
    'update accounts set balance_micros = balance_micros - ? where id = ? and balance_micros >= ? returning balance_micros',
  );
  const credit = db.prepare(CREDIT.replace(/\$\d/g, '?'));
  const entries =
    db.prepare(`insert into entries (transaction_id, leg, account_id, amount_micros, created_at_ms)
    values (?, 0, ?, ?, ?), (?, 1, ?, ?, ?)`);
  const transfer = db.transaction((n: number) => {
    const id = `ltx_raw_${n}`;
    insertTx.run(id, 'raw', BigInt(n));
    if (debit.get(1n, 'raw_a:available', 1n) === undefined) throw new Error('overdraft');
    credit.get(1n, 'raw_b:available');
    entries.run(id, 'raw_a:available', -1n, BigInt(n), id, 'raw_b:available', 1n, BigInt(n));
  });
  const endMs = Date.now() + seconds * 1000;
  let done = 0;
  while (Date.now() < endMs) {
    done += 1;
    transfer.immediate(done);
  }
  db.close();
  return done / seconds;
}

async function postgresLoops(url: string, schema: string, seconds: number, connections: number) {
  const pool = new pg.Pool({ connectionString: url, max: connections, options: `-c search_path=${schema}` });
  try {
    for (const statement of SETUP) await pool.query(statement);
    for (let c = 0; c < connections; c += 1) {
      for (const statement of [...accountSql(`raw_${c}_a`), ...accountSql(`raw_${c}_b`)])
        await pool.query(statement);
    }
    const endMs = Date.now() + seconds * 1000;
    const counts = await Promise.all(
      Array.from({ length: connections }, (_, c) => postgresLoop(pool, c, endMs)),
    );
    return counts.reduce((a, b) => a + b, 0) / seconds;
  } finally {
    await pool.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
    await pool.end();
  }
}

async function postgresLoop(pool: pg.Pool, c: number, endMs: number): Promise<number> {
  const client = await pool.connect();
  const [from, to] = [`raw_${c}_a:available`, `raw_${c}_b:available`];
  let done = 0;
  try {
    while (Date.now() < endMs) {
      const id = `ltx_raw_${c}_${done}`;
      await client.query('begin');
      await client.query(INSERT_TX, [id, 'raw', done]);
      const debited = await client.query(DEBIT, [1, from]);
      if (debited.rowCount !== 1) throw new Error('overdraft');
      await client.query(CREDIT, [1, to]);
      await client.query(INSERT_ENTRIES, [id, from, -1, to, done, 1]);
      await client.query('commit');
      done += 1;
    }
  } finally {
    client.release();
  }
  return done;
}
