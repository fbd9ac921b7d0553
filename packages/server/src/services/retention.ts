// Retention: what was sent (webhook events with their deliveries and mails) is kept 30 days by default
// (EVENT_RETENTION_DAYS), as Stripe keeps events, so an endpoint's delivery log and a redelivery reach that far
// back; denials older than the longest auto_freeze window count for nothing. Everything else a purge would touch
// is money or its history: kept.
import type { Kysely } from 'kysely';
import { ENVIRONMENT } from '../config-environment.ts';
import { DAY_MS, WINDOWS } from '../domain/policies/policies.ts';
import { assert } from '../errors.ts';
import type { Database } from '../store/schema.ts';

/** The default of EVENT_RETENTION_DAYS, in ms. */
export const SENT_KEPT_MS = ENVIRONMENT.EVENT_RETENTION_DAYS.default * DAY_MS;
/** Events purged per round: a round is a few short statements, whatever has piled up (a first run after an upgrade). */
export const PURGED_EVENTS_PER_ROUND_MAX = 500;
/** The longest window an auto_freeze policy may count denials in. */
const DENIALS_KEPT_MS = Math.max(...Object.values(WINDOWS));

/**
 * One round of housekeeping: up to PURGED_EVENTS_PER_ROUND_MAX events older than `sentKeptMs` with nothing
 * pending for them go with their webhook deliveries and mails; denials older than any window go. Answers how
 * many rows went. An event with a delivery or a mail still pending is kept until it is settled.
 */
export async function purgeSent(
  db: Kysely<Database>,
  nowMs: number,
  sentKeptMs: number = SENT_KEPT_MS,
): Promise<number> {
  assert(Number.isSafeInteger(nowMs) && nowMs >= 0, 'a purge needs the time');
  assert(Number.isSafeInteger(sentKeptMs) && sentKeptMs >= DAY_MS, 'events are kept a day at least');
  const cutoffMs = BigInt(nowMs - sentKeptMs);
  let query = db.selectFrom('webhook_events as e').select('e.id').where('e.created_at_ms', '<', cutoffMs);
  for (const table of ['webhook_deliveries', 'email_deliveries'] as const) {
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom(table)
            .select(`${table}.id`)
            .whereRef(`${table}.event_id`, '=', 'e.id')
            .where(`${table}.status`, '=', 'pending'),
        ),
      ),
    );
  }
  const old = await query.orderBy('e.created_at_ms').limit(PURGED_EVENTS_PER_ROUND_MAX).execute();
  let purged = 0;
  if (old.length > 0) {
    const ids = old.map((row) => row.id);
    // Deliveries and mails first (they refer to the event): a crash between leaves an event the next round takes.
    for (const table of ['webhook_deliveries', 'email_deliveries'] as const) {
      const deleted = await db.deleteFrom(table).where('event_id', 'in', ids).executeTakeFirst();
      purged += Number(deleted.numDeletedRows);
    }
    const events = await db.deleteFrom('webhook_events').where('id', 'in', ids).executeTakeFirst();
    purged += Number(events.numDeletedRows);
  }
  const denials = await db
    .deleteFrom('payment_denials')
    .where('at_ms', '<', BigInt(nowMs - DENIALS_KEPT_MS))
    .executeTakeFirst();
  return purged + Number(denials.numDeletedRows);
}
