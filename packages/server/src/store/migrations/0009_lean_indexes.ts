// Issue 11: a payment's write cost is mostly index pages. Counted in SQLite's WAL under 32 wallets paying each
// other, 141 of the ~190 pages a batch wrote were leaves of three per-wallet indexes — one leaf per wallet the
// batch touched, in each of them — so every index that a completed payment lands in costs a page per wallet
// per batch (and a btree insert and WAL record per payment on PostgreSQL).
// - entries_account_idx served only verify-ledger's per-account sums, which read every entry anyway.
// - (wallet_id, status, created_at_ms), (status, expires_at_ms) and (user_id, status) held every payment but are
//   only asked for payments that are not completed (pending approvals, processing payouts, failed or rejected
//   ones in a filtered history): they become partial indexes over those. A completed payment — nearly all of
//   them — now lands only in the primary key and (wallet_id, created_at_ms, status), which also serves the
//   rolling windows (their range is the window's time, not the status) and counts a history filtered to
//   completed payments without reading the rows.
// Queries that rely on a partial index repeat its predicate literally (store/partial-index.ts): SQLite uses a
// partial index only when the query's WHERE contains the index's term, and PostgreSQL's generic plans of a
// prepared statement cannot prove it from a parameter.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('entries_account_idx').execute();
  await db.schema
    .createIndex('transactions_wallet_open_idx')
    .on('transactions')
    .columns(['wallet_id', 'status', 'created_at_ms'])
    .where(sql<boolean>`status <> 'completed'`)
    .execute();
  await db.schema.dropIndex('transactions_wallet_status_created_idx').execute();
  await db.schema
    .createIndex('transactions_pending_expiry_idx')
    .on('transactions')
    .column('expires_at_ms')
    .where(sql<boolean>`status = 'pending'`)
    .execute();
  await db.schema.dropIndex('transactions_status_expires_idx').execute();
  await db.schema
    .createIndex('transactions_user_pending_idx')
    .on('transactions')
    .column('user_id')
    .where(sql<boolean>`status = 'pending'`)
    .execute();
  await db.schema.dropIndex('transactions_user_status_idx').execute();
  // A history filtered to completed payments (most of them) counts them from the index, without the rows.
  await db.schema
    .createIndex('transactions_wallet_created_status_idx')
    .on('transactions')
    .columns(['wallet_id', 'created_at_ms', 'status'])
    .execute();
  await db.schema.dropIndex('transactions_wallet_created_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('transactions_wallet_created_idx')
    .on('transactions')
    .columns(['wallet_id', 'created_at_ms'])
    .execute();
  await db.schema.dropIndex('transactions_wallet_created_status_idx').execute();
  await db.schema.createIndex('entries_account_idx').on('entries').column('account_id').execute();
  await db.schema
    .createIndex('transactions_wallet_status_created_idx')
    .on('transactions')
    .columns(['wallet_id', 'status', 'created_at_ms'])
    .execute();
  await db.schema
    .createIndex('transactions_status_expires_idx')
    .on('transactions')
    .columns(['status', 'expires_at_ms'])
    .execute();
  await db.schema
    .createIndex('transactions_user_status_idx')
    .on('transactions')
    .columns(['user_id', 'status'])
    .execute();
  await db.schema.dropIndex('transactions_wallet_open_idx').execute();
  await db.schema.dropIndex('transactions_pending_expiry_idx').execute();
  await db.schema.dropIndex('transactions_user_pending_idx').execute();
}
