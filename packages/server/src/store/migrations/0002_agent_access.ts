// API keys and spending policies of agent wallets.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('label', 'text', (c) => c.notNull())
    // SHA-256 of the whole key: the only form of the secret the server ever stores; lookups go by it.
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint')
    .addColumn('revoked_at_ms', 'bigint')
    .addColumn('rotated_to_key_id', 'text')
    .addColumn('last_used_at_ms', 'bigint')
    .execute();
  await db.schema
    .createIndex('api_keys_wallet_created_idx')
    .on('api_keys')
    .columns(['wallet_id', 'created_at_ms'])
    .execute();

  await db.schema
    .createTable('policies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('params_json', 'text', (c) => c.notNull())
    .addColumn('active', 'bigint', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('policies_wallet_created_idx')
    .on('policies')
    .columns(['wallet_id', 'created_at_ms'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('policies').execute();
  await db.schema.dropTable('api_keys').execute();
}
