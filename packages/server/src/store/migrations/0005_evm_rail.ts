// The EVM rail (issue 12): real USDC in and out.
// - service_settings: facts the database must keep about how it was created (its rail, its treasury address,
//   the next HD index), so a sandbox database is never started on `evm` and a mnemonic never silently changes.
// - wallets.derivation_index: the BIP-44 index whose key owns the wallet's address (null on the sandbox rail,
//   where addresses have no key). Unique: two wallets never share a key.
// - chain_cursors: how far the deposit watcher has credited, so a restart resumes, never re-credits.
// - chain_deposits: every USDC transfer seen to a service address, unique by (chain, tx hash, log index): the
//   database's half of "credited once". `pending` rows are what the chain shows now above the confirmed height.
// - chain_outbox: every transaction the treasury sends (payouts and sweeps), written in the same database
//   transaction as the debit it carries out; the signed raw transaction is stored before it is broadcast, so
//   a crash at any point resumes by checking the chain for that very transaction instead of signing anew.
// - chain_leases: one sender per treasury across instances.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('wallets').addColumn('derivation_index', 'bigint').execute();
  await db.schema
    .createIndex('wallets_derivation_index_idx')
    .unique()
    .on('wallets')
    .column('derivation_index')
    .execute();
  await db.schema
    .createTable('chain_cursors')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .execute();
  await createChainDeposits(db);
  await createChainOutbox(db);
  await db.schema
    .createTable('chain_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .execute();
}

async function createChainDeposits(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('chain_deposits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_id', 'bigint', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'bigint', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    // pending (seen, not yet confirmed) | credited
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('deposit_id', 'text')
    // Tokens still at the deposit address until swept to the treasury: null, or the outbox row sweeping them.
    .addColumn('sweep_id', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('chain_deposits_log_unique', ['chain_id', 'tx_hash', 'log_index'])
    .execute();
  await db.schema
    .createIndex('chain_deposits_status_idx')
    .on('chain_deposits')
    .columns(['status', 'block_number'])
    .execute();
}

async function createChainOutbox(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('chain_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // payout (treasury → outside address, for a transaction) | sweep (deposit address → treasury by EIP-3009)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    // queued → sent (signed and stored, maybe broadcast) → mined → completed | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('nonce', 'bigint')
    // The latest signed raw transaction, and every hash signed for this nonce (fee bumps), as JSON.
    .addColumn('raw_tx', 'text')
    .addColumn('tx_hashes_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('max_fee_per_gas', 'text')
    .addColumn('max_priority_fee_per_gas', 'text')
    .addColumn('mined_tx_hash', 'text')
    .addColumn('mined_block', 'bigint')
    // EIP-3009 authorization of a sweep: its nonce is unique, so a sweep can never be signed twice.
    .addColumn('authorization_json', 'text')
    .addColumn('authorization_nonce', 'text', (c) => c.unique())
    .addColumn('attempts', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('sent_at_ms', 'bigint')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chain_outbox_status_idx')
    .on('chain_outbox')
    .columns(['status', 'nonce'])
    .execute();
  await db.schema.createIndex('chain_outbox_nonce_idx').unique().on('chain_outbox').column('nonce').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('chain_leases').execute();
  await db.schema.dropTable('chain_outbox').execute();
  await db.schema.dropTable('chain_deposits').execute();
  await db.schema.dropTable('chain_cursors').execute();
  await db.schema.dropIndex('wallets_derivation_index_idx').execute();
  await db.schema.alterTable('wallets').dropColumn('derivation_index').execute();
  await db.schema.dropTable('service_settings').execute();
}
