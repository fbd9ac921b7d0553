// Email for what needs a person (issue 29, contract section 10). Only new tables: rows written before it need no
// backfill, and a database of the previous release upgrades in place.
// - email_deliveries: the mail side of the webhook outbox. A mailable event (approval.requested, security.*,
//   withdrawal_address.added, balance.low, budget.threshold, wallet.frozen) is stored in webhook_events in the
//   same database transaction as the change it reports, with one row here per member who receives it; the mail
//   is rendered when it is sent, from an allowlist of the event's fields (never a secret). One row per
//   (event, member). Claimed by moving next_attempt_at_ms forward (a lease), so two instances never send one
//   row at the same time; a crash between the send and its record sends it again (at least once).
// - email_preferences: the kinds of mail a member turned off (a JSON array); no row = every kind on.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_preferences')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('off_json', 'text', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('email_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
    // The member it goes to (their login id); the address is read when it is sent.
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    // pending | sent | failed | dropped (the member left or no longer receives that kind)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'bigint', (c) => c.notNull().defaultTo(0))
    // When it is due; while claimed, when the claim runs out.
    .addColumn('next_attempt_at_ms', 'bigint')
    .addColumn('lease_holder', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('email_deliveries_pair_unique', ['event_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('email_deliveries_due_idx')
    .on('email_deliveries')
    .columns(['status', 'next_attempt_at_ms'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_deliveries').execute();
  await db.schema.dropTable('email_preferences').execute();
}
