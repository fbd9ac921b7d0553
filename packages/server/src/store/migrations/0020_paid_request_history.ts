// Paid requests in history (contract section 13): a transaction shows how its seller was paid — `protocol` and
// `scheme` from its payment method — and the seller's receipt, read from the transaction row itself, as every
// view of it (REST, tools, webhooks, CSV) already reads. The receipt moves here from x402_payments (added there
// by 0019, never shown from there).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('payment_method', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('receipt', 'text').execute();
  // Every paid request before this release was an x402 `exact` payment, and its row carries its resource.
  await sql`update transactions set payment_method = 'x402-exact' where resource is not null`.execute(db);
  await sql`update transactions set receipt = (select x.receipt from x402_payments x where x.transaction_id = transactions.id) where resource is not null`.execute(
    db,
  );
  await db.schema.alterTable('x402_payments').dropColumn('receipt').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('x402_payments').addColumn('receipt', 'text').execute();
  await db.schema.alterTable('transactions').dropColumn('receipt').execute();
  await db.schema.alterTable('transactions').dropColumn('payment_method').execute();
}
