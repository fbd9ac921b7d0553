// Retention (services/retention.ts): what was sent is kept 30 days, then goes in small batches. Only indexes, so a
// database of the previous release starts on this one unchanged; each purge statement is an index range scan.
// - webhook_events by age: the oldest events first;
// - webhook_deliveries by event: an event's deliveries go with it (the foreign key has no index of its own);
// - payment_denials by age: denials older than the longest auto_freeze window count for nothing;
// - api_keys by OAuth client: a registered client no connection refers to goes a day after it registered.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_events_created_idx')
    .on('webhook_events')
    .column('created_at_ms')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event_idx')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();
  await db.schema.createIndex('payment_denials_at_idx').on('payment_denials').column('at_ms').execute();
  await db.schema.createIndex('api_keys_client_idx').on('api_keys').column('client_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_client_idx').execute();
  await db.schema.dropIndex('payment_denials_at_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_event_idx').execute();
  await db.schema.dropIndex('webhook_events_created_idx').execute();
}
