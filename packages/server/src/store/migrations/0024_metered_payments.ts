// Metered payments (x402 `upto`, contract section 13): the authorization the treasury signs is a maximum, and the
// chain's settlement says what was paid.
// - transactions.authorized_micros: the maximum a metered payment authorized, set when it settles for less (its
//   amount becomes the settled amount); null for every other payment, whose authorized amount is its amount.
// - transactions' amount check: still positive, but for a metered payment its seller settled for nothing — its
//   amount is 0 beside the maximum it authorized ("0.000000" is what the contract shows). PostgreSQL replaces the
//   constraint; SQLite cannot alter one, so the table is rebuilt under the same name, rows, indexes and
//   constraints (SQLite's documented procedure: foreign keys off, new table, copy, swap, foreign_key_check).
// - x402_payments.authorization: what the treasury signed — 'eip3009' (USDC's transferWithAuthorization, every
//   earlier row) or 'permit2' (a Permit2 witness transfer) — so the chain code (settlement, verify-ledger
//   --chain) knows how the chain shows its use without knowing the payment methods.
// - x402_payments.settled_micros: what the chain moved for it once settled (null before).
import { type Kysely, SqliteAdapter, sql } from 'kysely';

const POSITIVE = 'amount_micros > 0';
const POSITIVE_OR_SETTLED_NOTHING =
  'amount_micros > 0 or (amount_micros = 0 and authorized_micros is not null)';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('authorized_micros', 'bigint').execute();
  await replaceAmountCheck(db, POSITIVE, POSITIVE_OR_SETTLED_NOTHING);
  await db.schema
    .alterTable('x402_payments')
    .addColumn('authorization', 'text', (c) => c.notNull().defaultTo('eip3009'))
    .execute();
  await db.schema.alterTable('x402_payments').addColumn('settled_micros', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const zero = await sql<{
    n: number | string;
  }>`select count(*) as n from transactions where amount_micros = 0`.execute(db);
  if (Number(zero.rows[0]?.n ?? 0) > 0)
    throw new Error(
      'metered payments settled for nothing (amount 0) cannot be represented before migration 0024; not going down',
    );
  await db.schema.alterTable('x402_payments').dropColumn('settled_micros').execute();
  await db.schema.alterTable('x402_payments').dropColumn('authorization').execute();
  await replaceAmountCheck(db, POSITIVE_OR_SETTLED_NOTHING, POSITIVE);
  await db.schema.alterTable('transactions').dropColumn('authorized_micros').execute();
}

async function replaceAmountCheck(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return rebuildSqliteTransactions(db, from, to);
  await sql`alter table transactions drop constraint transactions_amount_positive`.execute(db);
  await sql`alter table transactions add constraint transactions_amount_positive check (${sql.raw(to)})`.execute(
    db,
  );
}

/** SQLite: the transactions table again, its amount check `from` replaced by `to`; everything else unchanged. */
async function rebuildSqliteTransactions(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  const table = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'table' and name = 'transactions'`.execute(db);
  const indexes = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'index' and tbl_name = 'transactions' and sql is not null`.execute(
    db,
  );
  const created = table.rows[0]?.sql ?? '';
  const check = `"transactions_amount_positive" check (${from})`;
  if (!created.includes(check)) throw new Error(`the transactions table has no check ${check}`);
  const rebuilt = created
    .replace(check, `"transactions_amount_positive" check (${to})`)
    .replace(/^create table "transactions"/i, 'create table "transactions_rebuilt"');
  // Not inside a transaction (SQLite migrations run outside one): the pragma only takes effect there.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      await sql.raw(rebuilt).execute(db);
      await sql`insert into transactions_rebuilt select * from transactions`.execute(db);
      await sql`drop table transactions`.execute(db);
      await sql`alter table transactions_rebuilt rename to transactions`.execute(db);
      for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error('the rebuilt transactions table breaks a foreign key');
      await sql`commit`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db);
      throw error;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
