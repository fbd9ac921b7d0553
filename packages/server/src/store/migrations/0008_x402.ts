// Issue 16: x402 payments (an agent paying an HTTP API with an EIP-3009 authorization from the treasury).
// - transactions.resource: the paid URL without its query. An x402 payment is stored as a `payment` (so every
//   spending cap, window and running total counts it without a second code path) and shown as `type: "x402"`
//   wherever a transaction is viewed.
// - x402_payments: one row per x402 payment: the requirement it pays, and once signed the authorization's nonce
//   and validity, so that a crash after signing resumes from here and the chain (authorizationState).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('resource', 'text').execute();
  await db.schema
    .createTable('x402_payments')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey().references('transactions.id'))
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    // awaiting_approval → approved (owner said yes, not signed yet) → signed → settled | expired;
    // or signed directly; abandoned when an approved payment is never fetched.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('x402_version', 'bigint', (c) => c.notNull())
    // The requirement as the seller offered it (JSON), and the resource object of a v2 402 answer.
    .addColumn('requirement_json', 'text', (c) => c.notNull())
    .addColumn('resource_json', 'text')
    .addColumn('pay_to', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('nonce', 'text')
    .addColumn('valid_before_s', 'bigint')
    .addColumn('settle_tx_hash', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('x402_payments_state_idx').on('x402_payments').columns(['state']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('x402_payments').execute();
  await db.schema.alterTable('transactions').dropColumn('resource').execute();
}
