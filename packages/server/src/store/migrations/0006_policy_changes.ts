// Issue 13: every policy change (created, updated, paused, resumed, deleted) is recorded with who and when, in
// the same database transaction as the change, so the audit trail cannot miss one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('policy_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    // Not a foreign key: a deleted policy's history stays.
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('policy_changes_wallet_created_idx')
    .on('policy_changes')
    .columns(['wallet_id', 'created_at_ms'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('policy_changes').execute();
}
