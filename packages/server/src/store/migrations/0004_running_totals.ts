// Write path v2 (issue 11): a payment's cost must not grow with the wallet's age or with the traffic of other
// wallets.
// - wallets.spent_micros: the running total of payments completed, processing or pending (held), so a total
//   cap is checked without summing the wallet's history. Backfilled from the transactions.
// - Rail accounts (`rail:<name>`, the outside world, the only accounts allowed below zero) keep no running
//   balance any more: every external payment updated that one row, which serialised all of them. Their balance
//   is the sum of their entries; the stored column is set to 0 and stays 0.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('wallets')
    .addColumn('spent_micros', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update wallets set spent_micros = coalesce((
      select sum(t.amount_micros) from transactions t
      where t.wallet_id = wallets.id and t.type = 'payment' and t.status in ('completed', 'processing', 'pending')
    ), 0)`.execute(db);
  await sql`update accounts set balance_micros = 0 where allow_negative = 1`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update accounts set balance_micros = coalesce((
      select sum(e.amount_micros) from entries e where e.account_id = accounts.id
    ), 0) where allow_negative = 1`.execute(db);
  await db.schema.alterTable('wallets').dropColumn('spent_micros').execute();
}
