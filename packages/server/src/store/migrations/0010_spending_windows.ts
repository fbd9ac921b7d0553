// Write path v2 (issue 11): a rolling window's spending without summing the window's payments.
// - spending_windows: per wallet and window length, the sum and count of its payments that count as spending
//   (completed, processing, pending) created after through_ms - span_ms — every such payment, later ones
//   included. A batch moves through_ms to its own time by taking off only the payments that left the window
//   since (each payment leaves once), and adds its new payments; a payment that stops counting while inside the
//   window is taken off where its status changes. So a daily cap costs the same whether the wallet made ten
//   payments today or a million. A row is made the first time a policy needs its window (from one sum).
// No backfill: rows start empty and are made on first use.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('spending_windows')
    .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
    .addColumn('span_ms', 'bigint', (c) => c.notNull())
    .addColumn('through_ms', 'bigint', (c) => c.notNull())
    .addColumn('spent_micros', 'bigint', (c) => c.notNull())
    .addColumn('payments', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('spending_windows_pk', ['wallet_id', 'span_ms'])
    .addCheckConstraint('spending_windows_not_negative', sql`spent_micros >= 0 and payments >= 0`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('spending_windows').execute();
}
