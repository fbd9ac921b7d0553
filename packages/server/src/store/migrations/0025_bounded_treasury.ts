// The bounded treasury (contract section 14, TREASURY_MODE=bounded):
// - treasury_delegations: each delegation the owners signed to the service's key (its full signed form, what the
//   enforcer's caveat allows, and whether the owners revoked it). The chain is the authority on all of it: a row
//   written here by anyone but the owners (a forged "owners signed") is refused by the DelegationManager, which
//   checks the owners' signatures itself.
// - treasury_signature_requests: what waits for the owners' signatures (chain/bounded/owners-ops.ts: a transfer out of
//   their account, the revocation of the service's delegation), the signatures handed in so far, and once the
//   threshold is met the outbox row that submits it.
// - chain_outbox.wallet_id becomes optional: a refill of the service's float (a redemption of the delegation) is a
//   transaction of the treasury like a payout or a sweep — same nonces, same store-before-broadcast, same fee
//   bumps — but it belongs to no wallet. PostgreSQL drops the NOT NULL in place; SQLite cannot alter a column,
//   so its table is rebuilt (nothing refers to chain_outbox by foreign key).
import { type Kysely, SqliteAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('treasury_delegations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_id', 'bigint', (c) => c.notNull())
    // The owners' smart account (the delegator) and the service's key (the delegate), lower-case.
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('delegate', 'text', (c) => c.notNull())
    .addColumn('delegation_hash', 'text', (c) => c.notNull().unique())
    .addColumn('delegation_json', 'text', (c) => c.notNull())
    .addColumn('allowance_micros', 'bigint', (c) => c.notNull())
    .addColumn('period_seconds', 'bigint', (c) => c.notNull())
    .addColumn('start_seconds', 'bigint', (c) => c.notNull())
    // active | revoked
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at_ms', 'bigint')
    .execute();
  await db.schema
    .createIndex('treasury_delegations_status_idx')
    .on('treasury_delegations')
    .columns(['status', 'created_at_ms'])
    .execute();
  await db.schema
    .createTable('treasury_signature_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_id', 'bigint', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    // transfer | revoke
    .addColumn('kind', 'text', (c) => c.notNull())
    // One request per withdrawal: the payment it pays (its outbox row waits in awaiting_signatures).
    .addColumn('transaction_id', 'text', (c) => c.unique())
    .addColumn('to_address', 'text')
    .addColumn('amount_micros', 'bigint')
    // The user operation the owners sign (its numbers as decimal strings) and its EIP-712 digest.
    .addColumn('operation_json', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('signatures_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('signatures_needed', 'bigint', (c) => c.notNull())
    // awaiting_signatures → submitted → completed | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('outbox_id', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('treasury_signature_requests_status_idx')
    .on('treasury_signature_requests')
    .columns(['status', 'created_at_ms'])
    .execute();
  if (isSqlite(db)) await rebuildOutbox(db, true);
  else await sql`alter table chain_outbox alter column wallet_id drop not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Refills are history of money that moved between the service's own addresses; the older release has no
  // place for a row without a wallet.
  await sql`delete from chain_outbox where wallet_id is null`.execute(db);
  if (isSqlite(db)) await rebuildOutbox(db, false);
  else await sql`alter table chain_outbox alter column wallet_id set not null`.execute(db);
  await db.schema.dropTable('treasury_signature_requests').execute();
  await db.schema.dropTable('treasury_delegations').execute();
}

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/** chain_outbox as 0005 created it, wallet_id optional or not, its rows and indexes carried over. */
async function rebuildOutbox(db: Kysely<unknown>, walletOptional: boolean): Promise<void> {
  await db.schema
    .createTable('chain_outbox_rebuilt')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('wallet_id', 'text', (c) =>
      walletOptional ? c.references('wallets.id') : c.notNull().references('wallets.id'),
    )
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('nonce', 'bigint')
    .addColumn('raw_tx', 'text')
    .addColumn('tx_hashes_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('max_fee_per_gas', 'text')
    .addColumn('max_priority_fee_per_gas', 'text')
    .addColumn('mined_tx_hash', 'text')
    .addColumn('mined_block', 'bigint')
    .addColumn('authorization_json', 'text')
    .addColumn('authorization_nonce', 'text', (c) => c.unique())
    .addColumn('attempts', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('sent_at_ms', 'bigint')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into chain_outbox_rebuilt select * from chain_outbox`.execute(db);
  await db.schema.dropTable('chain_outbox').execute();
  await db.schema.alterTable('chain_outbox_rebuilt').renameTo('chain_outbox').execute();
  await db.schema
    .createIndex('chain_outbox_status_idx')
    .on('chain_outbox')
    .columns(['status', 'nonce'])
    .execute();
  await db.schema.createIndex('chain_outbox_nonce_idx').unique().on('chain_outbox').column('nonce').execute();
}
