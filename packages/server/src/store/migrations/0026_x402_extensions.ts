// x402 extensions a seller declares (x402 v2's PaymentRequired `extensions`), kept with the payment so its payload
// answers them the same way after a restart: x402_payments.extensions_json holds the declarations of the
// extensions this service answers (today `payment-identifier`), as the seller sent them; null when the seller
// declared none of them — every row before this migration, whose payloads carried no extensions and still do not.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('x402_payments').addColumn('extensions_json', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('x402_payments').dropColumn('extensions_json').execute();
}
