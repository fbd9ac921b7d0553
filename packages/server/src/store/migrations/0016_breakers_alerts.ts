// Breakers and alerts (contract section 10). Only new tables and one nullable column, so rows written before it
// need no backfill and a database of the previous release starts on this one unchanged.
// - payment_denials: the denials (policy or balance) of wallets with an auto_freeze policy, counted in its rolling
//   window under the batch's wallet lock; cleared when the owner unfreezes the wallet.
// - wallets.frozen_reason: why a frozen wallet is frozen ('auto_freeze'); null for the owner's freeze.
// - alerts: balance_below and cap_used, with what fired and is not re-armed yet (fired_json), so each fires once
//   per crossing.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payment_denials')
    .addColumn('wallet_id', 'text', (c) => c.notNull())
    .addColumn('at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_denials_wallet_at_idx')
    .on('payment_denials')
    .columns(['wallet_id', 'at_ms'])
    .execute();
  await db.schema.alterTable('wallets').addColumn('frozen_reason', 'text').execute();
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    // The wallet it watches: an agent wallet, or the master wallet (balance_below).
    .addColumn('wallet_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('params_json', 'text', (c) => c.notNull())
    .addColumn('fired_json', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alerts_wallet_idx').on('alerts').column('wallet_id').execute();
  await db.schema.createIndex('alerts_user_idx').on('alerts').columns(['user_id', 'created_at_ms']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alerts').execute();
  await db.schema.alterTable('wallets').dropColumn('frozen_reason').execute();
  await db.schema.dropTable('payment_denials').execute();
}
