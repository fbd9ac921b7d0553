// Webhook secret rotation and per-endpoint backoff (contract section 7). Only adds nullable columns to
// webhook_endpoints (from 0007), so it depends on nothing newer and rows written before it need no backfill.
// - previous_secret, previous_secret_expires_at_ms: the secret a rotation replaced and when it stops signing.
//   Until then deliveries carry a signature with each secret, so receivers switch without losing an event.
//   Stored as the current one is (HMAC needs it); never shown, listed or logged; null when there is none.
// - backoff_until_ms: after a failed attempt the endpoint gets no delivery before this (a hanging endpoint
//   costs one timeout, then waits out its backoff instead of taking a delivery slot every round).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').execute();
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('previous_secret_expires_at_ms', 'bigint')
    .execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('backoff_until_ms', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('backoff_until_ms').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_expires_at_ms').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').execute();
}
