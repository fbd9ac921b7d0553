// Webhook events, written in the same database transaction as the change they report (an outbox): a crash or a
// restart can delay a delivery, never lose one. An event is stored only when one of its user's endpoints
// subscribes to its type, together with one delivery row per such endpoint; a batch of changes costs one
// endpoint lookup, and nothing more when nobody listens.
import type { Insertable, Kysely } from 'kysely';
import { newId } from '../domain/ids.ts';
import type { EventType } from '../domain/webhook-events.ts';
import type { Database, WebhookEventsTable } from '../store/schema.ts';
import type { WriteStep } from '../store/write-plan.ts';
import { transactionView } from './transactions.ts';

export interface NewEvent {
  userId: string;
  type: EventType;
  /**
   * The resource as the REST API shows it, built only when an endpoint subscribes: a batch of payments
   * nobody listens to builds no views.
   */
  data: () => unknown | Promise<unknown>;
  nowMs: number;
}

interface Subscriber {
  id: string;
  userId: string;
  /** null: every type. */
  events: ReadonlySet<string> | null;
}

/** Pure: which endpoints receive which events. */
export function fanOut(
  events: readonly NewEvent[],
  subscribers: readonly Subscriber[],
): Array<{ event: NewEvent; endpointIds: string[] }> {
  return events
    .map((event) => ({
      event,
      endpointIds: subscribers
        .filter((s) => s.userId === event.userId && (s.events === null || s.events.has(event.type)))
        .map((s) => s.id),
    }))
    .filter((e) => e.endpointIds.length > 0);
}

export async function emitEvents(trx: Kysely<Database>, events: readonly NewEvent[]): Promise<void> {
  for (const step of await eventWrites(trx, events)) await trx.executeQuery(step.query);
}

/**
 * The writes that record `events` for their subscribers (an event row, a delivery per endpoint), after reading
 * who subscribes; none when nobody does. Returned rather than run, so a batch sends them with its own writes.
 */
export async function eventWrites(trx: Kysely<Database>, events: readonly NewEvent[]): Promise<WriteStep[]> {
  if (events.length === 0) return [];
  const users = [...new Set(events.map((e) => e.userId))];
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'user_id', 'events_json'])
    .where('user_id', 'in', users)
    .execute();
  if (endpoints.length === 0) return [];
  const subscribers = endpoints.map((e) => ({
    id: e.id,
    userId: e.user_id,
    events: e.events_json === null ? null : new Set(JSON.parse(e.events_json) as string[]),
  }));
  const routed = fanOut(events, subscribers);
  if (routed.length === 0) return [];
  const rows: Insertable<WebhookEventsTable>[] = [];
  for (const { event } of routed) {
    rows.push({
      id: newId('evt'),
      user_id: event.userId,
      type: event.type,
      data_json: JSON.stringify(await event.data()),
      created_at_ms: BigInt(event.nowMs),
    });
  }
  const deliveries = routed.flatMap(({ event, endpointIds }, i) =>
    endpointIds.map((endpointId) => ({
      id: newId('dlv'),
      endpoint_id: endpointId,
      event_id: rows[i]!.id,
      event_type: event.type,
      status: 'pending' as const,
      attempts: 0n,
      next_attempt_at_ms: BigInt(event.nowMs),
      response_status: null,
      last_error: null,
      created_at_ms: BigInt(event.nowMs),
      updated_at_ms: BigInt(event.nowMs),
    })),
  );
  return [
    { what: 'webhook events', query: trx.insertInto('webhook_events').values(rows).compile() },
    { what: 'webhook deliveries', query: trx.insertInto('webhook_deliveries').values(deliveries).compile() },
  ];
}

export const emitEvent = (trx: Kysely<Database>, event: NewEvent) => emitEvents(trx, [event]);

/** An event about a transaction, its data the transaction as the REST API shows it now (after the change). */
export async function emitTransactionEvent(
  trx: Kysely<Database>,
  transactionId: string,
  type: EventType,
  nowMs: number,
): Promise<void> {
  const row = await trx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
  await emitEvent(trx, { userId: row.user_id, type, data: () => transactionView(row), nowMs });
}
