// Webhook events, written in the same database transaction as the change they report (an outbox): a crash or a
// restart can delay a delivery, never lose one. An event is stored only when one of its user's endpoints
// subscribes to its type, or (with SMTP configured) a member of its organization receives it by email, together
// with one delivery row per such endpoint and one email row per such member; a batch of changes costs one
// lookup (endpoints, and members only when the batch holds an event that is mailed), and nothing more when
// nobody listens.
import { type Insertable, type Kysely, sql } from 'kysely';
import { emailKindOf, type MailMember, mailRecipients, parseOffList } from '../../domain/email/mail.ts';
import { newId } from '../../domain/ids.ts';
import { isRole } from '../../domain/organizations/roles.ts';
import type { EventType } from '../../domain/webhooks/webhook-events.ts';
import type { Database, EmailDeliveriesTable, WebhookEventsTable } from '../../store/schema.ts';
import type { WriteStep } from '../../store/write-plan.ts';
import type { EventOutbox } from '../context.ts';
import { transactionView } from '../wallets/transactions.ts';

export type { EventOutbox, EventType };

/** The event types a member may get by email (domain/email.ts emailKindOf says the same at run time). */
export type MailedEventType = Extract<
  EventType,
  | 'approval.requested'
  | `security.${string}`
  | 'withdrawal_address.added'
  | 'balance.low'
  | 'budget.threshold'
  | 'wallet.frozen'
  | 'treasury.at_risk'
>;
export type UnmailedEventType = Exclude<EventType, MailedEventType>;

export interface NewEvent {
  userId: string;
  type: EventType;
  /**
   * The resource as the REST API shows it, built only when an endpoint subscribes: a batch of payments
   * nobody listens to builds no views.
   */
  data: () => unknown | Promise<unknown>;
  nowMs: number;
  /**
   * Users mailed this event whatever their role or email choices, also when they are no longer members: the
   * member a membership change is about (domain/email.ts toldToTheMember). Only with SMTP configured.
   */
  mailAlso?: readonly string[];
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

export async function emitEvents(
  trx: Kysely<Database>,
  events: readonly NewEvent[],
  outbox: EventOutbox,
): Promise<void> {
  for (const step of await eventWrites(trx, events, outbox)) await trx.executeQuery(step.query);
}

interface Recipients {
  subscribers: Subscriber[];
  members: MailMember[];
}

/**
 * Who receives events of `users`, in one query: their webhook endpoints, and the members of the organizations in
 * `mailed` (those whose events in this batch are mailed) with the kinds of mail they turned off.
 */
async function readRecipients(
  trx: Kysely<Database>,
  users: readonly string[],
  mailed: readonly string[],
): Promise<Recipients> {
  const endpoints = trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'user_id', 'events_json', sql<string | null>`cast(null as text)`.as('role')])
    .where('user_id', 'in', users);
  const rows =
    mailed.length === 0
      ? await endpoints.execute()
      : await endpoints
          .unionAll(
            trx
              .selectFrom('members as m')
              .innerJoin('organizations as o', 'o.id', 'm.organization_id')
              .leftJoin('email_preferences as p', 'p.user_id', 'm.user_id')
              .select([
                'm.user_id as id',
                'o.scope_user_id as user_id',
                'p.off_json as events_json',
                sql<string | null>`m.role`.as('role'),
              ])
              .where('o.scope_user_id', 'in', mailed),
          )
          .execute();
  const recipients: Recipients = { subscribers: [], members: [] };
  for (const row of rows) {
    if (row.role === null) {
      recipients.subscribers.push({
        id: row.id,
        userId: row.user_id,
        events: row.events_json === null ? null : new Set(JSON.parse(row.events_json) as string[]),
      });
    } else if (isRole(row.role)) {
      recipients.members.push({
        userId: row.id,
        scopeUserId: row.user_id,
        role: row.role,
        off: parseOffList(row.events_json),
      });
    }
  }
  return recipients;
}

/**
 * The writes that record `events` for their receivers (an event row, a delivery per endpoint, a mail per
 * member), after reading who receives them; none when nobody does. Returned rather than run, so a batch sends
 * them with its own writes.
 */
export async function eventWrites(
  trx: Kysely<Database>,
  events: readonly NewEvent[],
  outbox: EventOutbox,
): Promise<WriteStep[]> {
  if (events.length === 0) return [];
  const users = [...new Set(events.map((e) => e.userId))];
  const mailed = outbox.email
    ? [...new Set(events.filter((e) => emailKindOf(e.type) !== null).map((e) => e.userId))]
    : [];
  const { subscribers, members } = await readRecipients(trx, users, mailed);
  const alsoMailed = outbox.email && events.some((e) => (e.mailAlso?.length ?? 0) > 0);
  if (subscribers.length === 0 && members.length === 0 && !alsoMailed) return [];
  const endpointsOf = new Map(fanOut(events, subscribers).map((r) => [r.event, r.endpointIds]));
  const mailsOf = new Map(mailRecipients(events, members).map((r) => [r.event, r.userIds]));
  if (alsoMailed) addMailAlso(events, mailsOf);
  const rows: Insertable<WebhookEventsTable>[] = [];
  const deliveries: Insertable<Database['webhook_deliveries']>[] = [];
  const mails: Insertable<EmailDeliveriesTable>[] = [];
  for (const event of events) {
    const endpointIds = endpointsOf.get(event) ?? [];
    const userIds = mailsOf.get(event) ?? [];
    if (endpointIds.length === 0 && userIds.length === 0) continue;
    const eventId = newId('evt');
    rows.push({
      id: eventId,
      user_id: event.userId,
      type: event.type,
      data_json: JSON.stringify(await event.data()),
      created_at_ms: BigInt(event.nowMs),
    });
    for (const endpointId of endpointIds) deliveries.push(deliveryRow(event, eventId, endpointId));
    for (const userId of userIds) mails.push(mailRow(event, eventId, userId));
  }
  if (rows.length === 0) return [];
  const steps: WriteStep[] = [
    { what: 'webhook events', query: trx.insertInto('webhook_events').values(rows).compile() },
  ];
  if (deliveries.length > 0) {
    steps.push({
      what: 'webhook deliveries',
      query: trx.insertInto('webhook_deliveries').values(deliveries).compile(),
    });
  }
  if (mails.length > 0) {
    steps.push({
      what: 'email deliveries',
      query: trx.insertInto('email_deliveries').values(mails).compile(),
    });
  }
  return steps;
}

/** Adds each event's `mailAlso` users to its mail recipients (once each). */
function addMailAlso(events: readonly NewEvent[], mailsOf: Map<NewEvent, string[]>): void {
  for (const event of events) {
    const also = event.mailAlso ?? [];
    if (also.length > 0) mailsOf.set(event, [...new Set([...(mailsOf.get(event) ?? []), ...also])]);
  }
}

function deliveryRow(
  event: NewEvent,
  eventId: string,
  endpointId: string,
): Insertable<Database['webhook_deliveries']> {
  const nowMs = BigInt(event.nowMs);
  return {
    id: newId('dlv'),
    endpoint_id: endpointId,
    event_id: eventId,
    event_type: event.type,
    status: 'pending',
    attempts: 0n,
    next_attempt_at_ms: nowMs,
    response_status: null,
    last_error: null,
    created_at_ms: nowMs,
    updated_at_ms: nowMs,
  };
}

function mailRow(event: NewEvent, eventId: string, userId: string): Insertable<EmailDeliveriesTable> {
  const nowMs = BigInt(event.nowMs);
  return {
    id: newId('eml'),
    event_id: eventId,
    user_id: userId,
    event_type: event.type,
    status: 'pending',
    attempts: 0n,
    next_attempt_at_ms: nowMs,
    lease_holder: null,
    last_error: null,
    created_at_ms: nowMs,
    updated_at_ms: nowMs,
  };
}

/** Records one event; one that may be mailed needs the outbox, so that no caller forgets its mails. */
export function emitEvent(
  trx: Kysely<Database>,
  event: NewEvent & { type: UnmailedEventType },
): Promise<void>;
export function emitEvent(trx: Kysely<Database>, event: NewEvent, outbox: EventOutbox): Promise<void>;
export function emitEvent(trx: Kysely<Database>, event: NewEvent, outbox: EventOutbox = { email: false }) {
  return emitEvents(trx, [event], outbox);
}

/** An event about a transaction, its data the transaction as the REST API shows it now (after the change). */
export async function emitTransactionEvent(
  trx: Kysely<Database>,
  transactionId: string,
  type: UnmailedEventType,
  nowMs: number,
): Promise<void> {
  const row = await trx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
  await emitEvent(trx, { userId: row.user_id, type, data: () => transactionView(row), nowMs });
}
