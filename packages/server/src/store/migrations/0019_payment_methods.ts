// Ways to pay as modules (payments/): an x402_payments row is now a paid request of any registered method.
// - method: the module that reads its offer and builds its credential ('x402-exact' for every earlier row, which
//   keeps paying and settling exactly as before); requirement_json holds that method's own record of the offer.
// - receipt: what the seller's answer said of the payment (x402's PAYMENT-RESPONSE, MPP's Payment-Receipt), kept
//   and shown in history; the chain still decides the status.
// - a unique nonce: the chain accepts one authorization per nonce, and an MPP nonce is its challenge's own hash,
//   so a second payment under one nonce could only ever be paid once — the database refuses to record it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('x402_payments')
    .addColumn('method', 'text', (c) => c.notNull().defaultTo('x402-exact'))
    .execute();
  await db.schema.alterTable('x402_payments').addColumn('receipt', 'text').execute();
  await db.schema
    .createIndex('x402_payments_nonce_idx')
    .on('x402_payments')
    .column('nonce')
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('x402_payments_nonce_idx').execute();
  await db.schema.alterTable('x402_payments').dropColumn('receipt').execute();
  await db.schema.alterTable('x402_payments').dropColumn('method').execute();
}
