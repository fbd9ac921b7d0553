// Users, sessions, wallets and the double-entry ledger. Plain Kysely schema builder with `text` and
// `bigint` columns only, so the same migration runs on SQLite and PostgreSQL.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('password_changed_at_ms', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at_ms', 'bigint')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('wallets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('address', 'text', (c) => c.notNull().unique())
    .addColumn('frozen_at_ms', 'bigint')
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .addCheckConstraint('wallets_kind_check', sql`kind in ('master', 'agent')`)
    .execute();
  await db.schema
    .createIndex('wallets_user_kind_created_idx')
    .on('wallets')
    .columns(['user_id', 'kind', 'created_at_ms'])
    .execute();
  await db.schema
    .createIndex('wallets_one_master_per_user')
    .on('wallets')
    .column('user_id')
    .unique()
    .where(sql.ref('kind'), '=', 'master')
    .execute();

  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.references('wallets.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('balance_micros', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('allow_negative', 'bigint', (c) => c.notNull().defaultTo(0))
    // The overdraft guard lives in the database, not only in code.
    .addCheckConstraint('accounts_non_negative', sql`allow_negative = 1 or balance_micros >= 0`)
    .addCheckConstraint('accounts_kind_check', sql`kind in ('available', 'hold', 'external')`)
    .execute();

  // One outside-world account per external rail: the other side of every deposit and external payment.
  for (const rail of ['sandbox', 'evm']) {
    await sql`insert into accounts (id, wallet_id, kind, balance_micros, allow_negative)
      values (${`rail:${rail}`}, null, 'external', 0, 1)`.execute(db);
  }

  await db.schema
    .createTable('ledger_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('reference_id', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('entries')
    .addColumn('transaction_id', 'text', (c) => c.notNull().references('ledger_transactions.id'))
    .addColumn('leg', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('entries_pk', ['transaction_id', 'leg'])
    .addCheckConstraint('entries_non_zero', sql`amount_micros <> 0`)
    .execute();
  await db.schema.createIndex('entries_account_idx').on('entries').column('account_id').execute();

  await db.schema
    .createTable('deposits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    .addColumn('ledger_transaction_id', 'text', (c) => c.notNull().references('ledger_transactions.id'))
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('deposits_user_created_idx')
    .on('deposits')
    .columns(['user_id', 'created_at_ms'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'bigint')
    .addColumn('response_body', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    // The unique constraint, not a read-then-write, is what makes simultaneous duplicates safe.
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created_idx')
    .on('idempotency_keys')
    .column('created_at_ms')
    .execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('to_address', 'text')
    .addColumn('counterparty_wallet_id', 'text')
    .addColumn('memo', 'text')
    .addColumn('reason', 'text')
    .addColumn('rail', 'text')
    .addColumn('tx_hash', 'text')
    .addColumn('rejection_reason', 'text')
    .addColumn('violations_json', 'text')
    .addColumn('initiated_by', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('expires_at_ms', 'bigint')
    .addColumn('related_transaction_id', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .addCheckConstraint('transactions_amount_positive', sql`amount_micros > 0`)
    .addCheckConstraint('transactions_type_check', sql`type in ('payment', 'incoming', 'fund', 'withdraw')`)
    .addCheckConstraint(
      'transactions_status_check',
      sql`status in ('pending', 'processing', 'completed', 'rejected', 'expired', 'failed')`,
    )
    .execute();
  await db.schema
    .createIndex('transactions_wallet_created_idx')
    .on('transactions')
    .columns(['wallet_id', 'created_at_ms'])
    .execute();
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
    .createTable('transaction_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('transaction_id', 'text', (c) => c.notNull().references('transactions.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('transaction_events_tx_idx')
    .on('transaction_events')
    .columns(['transaction_id', 'created_at_ms'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'transaction_events',
    'transactions',
    'idempotency_keys',
    'deposits',
    'entries',
    'ledger_transactions',
    'accounts',
    'wallets',
    'sessions',
    'users',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
