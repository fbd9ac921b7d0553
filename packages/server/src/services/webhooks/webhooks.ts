// A user's webhook endpoints (contract section 7): create (the secret shown once), list, change, delete, rotate
// the secret (the new one shown once), the delivery log and a manual redelivery. URLs are checked for shape
// and, unless private targets are allowed, for what they resolve to now (the worker checks again on every
// delivery).
import { lookup } from 'node:dns/promises';
import { type Selectable, sql } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId, randomBase62 } from '../../domain/ids.ts';
import type { EventType } from '../../domain/webhooks/webhook-events.ts';
import { rotationPlan } from '../../domain/webhooks/webhook-secrets.ts';
import { checkWebhookUrl, isPrivateAddress } from '../../domain/webhooks/webhook-url.ts';
import { invalid, notFound } from '../../errors.ts';
import { lockOwnerRow } from '../../store/locks.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from '../context.ts';
import { hostAddresses } from './outbound-http.ts';

export const ENDPOINTS_PER_USER_MAX = 20;
const SECRET_RANDOM_LENGTH = 40;
const DNS_TIMEOUT_MS = 5_000;

export interface EndpointView {
  id: string;
  url: string;
  events: EventType[] | null;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  responseStatus: number | null;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
}

export interface EndpointInput {
  url: string;
  events?: EventType[] | null;
  description?: string | null;
}

function endpointView(row: Selectable<WebhookEndpointsTable>): EndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events_json === null ? null : (JSON.parse(row.events_json) as EventType[]),
    description: row.description,
    createdAt: isoFromMs(row.created_at_ms),
    updatedAt: isoFromMs(row.updated_at_ms),
  };
}

/** `backoffUntilMs`: the endpoint's backoff, which holds its pending deliveries back until then too. */
function deliveryView(
  row: Selectable<WebhookDeliveriesTable>,
  backoffUntilMs: bigint | null = null,
): DeliveryView {
  const next =
    row.next_attempt_at_ms === null || backoffUntilMs === null || row.next_attempt_at_ms >= backoffUntilMs
      ? row.next_attempt_at_ms
      : backoffUntilMs;
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    nextAttemptAt: row.status === 'pending' && next !== null ? isoFromMs(next) : null,
    lastError: row.last_error,
    createdAt: isoFromMs(row.created_at_ms),
  };
}

/**
 * The URL's shape, then (unless private targets are allowed) every address it resolves to now. A name that
 * does not resolve and one that resolves to a private address are told apart in no way: what a name means
 * inside this network is not the caller's to learn.
 */
export async function assertDeliverableUrl(url: string, allowPrivate: boolean): Promise<void> {
  const own = hostAddresses();
  const checked = checkWebhookUrl(url, allowPrivate, own);
  if (!checked.ok) throw invalid(`url ${checked.reason}`);
  if (allowPrivate) return;
  const host = checked.url.hostname.replace(/^\[|\]$/g, '');
  const resolved = await Promise.race([
    lookup(host, { all: true }).catch(() => null),
    new Promise<null>((done) => setTimeout(() => done(null), DNS_TIMEOUT_MS).unref()),
  ]);
  if (resolved === null || resolved.length === 0 || resolved.some((a) => isPrivateAddress(a.address, own))) {
    throw invalid(`url: ${host} does not resolve to a public address`);
  }
}

interface WebhookContext extends ServiceContext {
  allowPrivate: boolean;
}

function newSecret(): string {
  return `whsec_${randomBase62(SECRET_RANDOM_LENGTH)}`;
}

async function ownedEndpoint(ctx: WebhookContext, userId: string, endpointId: string) {
  const row = await ctx.store.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', endpointId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (row === undefined) throw notFound('webhook endpoint');
  return row;
}

async function createEndpoint(ctx: WebhookContext, userId: string, input: EndpointInput) {
  await assertDeliverableUrl(input.url, ctx.allowPrivate);
  const nowMs = BigInt(ctx.clock.nowMs());
  const row = {
    id: newId('whk'),
    user_id: userId,
    url: input.url,
    events_json: input.events === undefined || input.events === null ? null : JSON.stringify(input.events),
    description: input.description ?? null,
    secret: newSecret(),
    previous_secret: null,
    previous_secret_expires_at_ms: null,
    lease_holder: null,
    lease_until_ms: null,
    backoff_until_ms: null,
    created_at_ms: nowMs,
    updated_at_ms: nowMs,
  };
  await ctx.writer.run(async (trx) => {
    await lockOwnerRow(trx, 'users', userId);
    const { n } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    if (Number(n) >= ENDPOINTS_PER_USER_MAX) {
      throw invalid(`a user can have at most ${ENDPOINTS_PER_USER_MAX} webhook endpoints`);
    }
    await trx.insertInto('webhook_endpoints').values(row).execute();
  });
  // The secret appears in this answer only.
  const { id, url, events, createdAt } = endpointView(row);
  return { id, url, events, description: row.description, secret: row.secret, createdAt };
}

async function updateEndpoint(
  ctx: WebhookContext,
  userId: string,
  endpointId: string,
  change: Partial<EndpointInput>,
) {
  await ownedEndpoint(ctx, userId, endpointId);
  if (change.url !== undefined) await assertDeliverableUrl(change.url, ctx.allowPrivate);
  const events = change.events === null ? null : JSON.stringify(change.events);
  await ctx.store.db
    .updateTable('webhook_endpoints')
    .set({
      // A new URL starts without the old one's backoff.
      ...(change.url === undefined ? {} : { url: change.url, backoff_until_ms: null }),
      ...(change.events === undefined ? {} : { events_json: events }),
      ...(change.description === undefined ? {} : { description: change.description }),
      updated_at_ms: BigInt(ctx.clock.nowMs()),
    })
    .where('id', '=', endpointId)
    .execute();
  return endpointView(await ownedEndpoint(ctx, userId, endpointId));
}

async function removeEndpoint(ctx: WebhookContext, userId: string, endpointId: string) {
  await ownedEndpoint(ctx, userId, endpointId);
  await ctx.writer.run(async (trx) => {
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).execute();
    await trx.deleteFrom('webhook_endpoints').where('id', '=', endpointId).execute();
  });
  return { id: endpointId, deleted: true as const };
}

async function listDeliveries(ctx: WebhookContext, userId: string, endpointId: string, page: Page) {
  const endpoint = await ownedEndpoint(ctx, userId, endpointId);
  const base = ctx.store.db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  const { rows, total } = await pageOf(base, page);
  return { items: rows.map((row) => deliveryView(row, endpoint.backoff_until_ms)), total };
}

/**
 * Queues the delivery again now, whatever its state: the receiver gets the same event id again. The owner
 * asking is a reason to try the endpoint now, so its backoff ends too.
 */
async function redeliver(ctx: WebhookContext, userId: string, endpointId: string, deliveryId: string) {
  await ownedEndpoint(ctx, userId, endpointId);
  const nowMs = BigInt(ctx.clock.nowMs());
  const updated = await ctx.store.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at_ms: nowMs, updated_at_ms: nowMs })
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  if (updated.numUpdatedRows !== 1n) throw notFound('delivery');
  await ctx.store.db
    .updateTable('webhook_endpoints')
    .set({ backoff_until_ms: null })
    .where('id', '=', endpointId)
    .execute();
  const row = await ctx.store.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', deliveryId)
    .executeTakeFirstOrThrow();
  return deliveryView(row);
}

/**
 * A new secret, shown in this answer only. The one it replaces keeps signing too until the overlap ends.
 * Rotating during an overlap replaces the previous secret with the current one (the older one stops signing).
 * One statement reads and moves the current secret, so concurrent rotations act as if made one after the other.
 */
async function rotateSecret(ctx: WebhookContext, userId: string, endpointId: string, overlapSeconds: number) {
  const nowMs = ctx.clock.nowMs();
  const plan = rotationPlan(nowMs, overlapSeconds);
  const secret = newSecret();
  const updated = await ctx.store.db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      secret,
      previous_secret: plan.keepPrevious ? eb.ref('secret') : sql<null>`null`,
      previous_secret_expires_at_ms: BigInt(plan.previousSecretExpiresAtMs),
      updated_at_ms: BigInt(nowMs),
    }))
    .where('id', '=', endpointId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (updated.numUpdatedRows !== 1n) throw notFound('webhook endpoint');
  return { secret, previousSecretExpiresAt: isoFromMs(plan.previousSecretExpiresAtMs) };
}

async function listEndpoints(ctx: WebhookContext, userId: string, page: Page) {
  const base = ctx.store.db.selectFrom('webhook_endpoints').where('user_id', '=', userId);
  const { rows, total } = await pageOf(base, page);
  return { items: rows.map(endpointView), total };
}

export function createWebhookService(ctx: ServiceContext, allowPrivate: boolean) {
  const wctx: WebhookContext = { ...ctx, allowPrivate };
  return {
    create: (userId: string, input: EndpointInput) => createEndpoint(wctx, userId, input),
    list: (userId: string, page: Page) => listEndpoints(wctx, userId, page),
    update: (userId: string, endpointId: string, change: Partial<EndpointInput>) =>
      updateEndpoint(wctx, userId, endpointId, change),
    remove: (userId: string, endpointId: string) => removeEndpoint(wctx, userId, endpointId),
    rotateSecret: (userId: string, endpointId: string, overlapSeconds: number) =>
      rotateSecret(wctx, userId, endpointId, overlapSeconds),
    deliveries: (userId: string, endpointId: string, page: Page) =>
      listDeliveries(wctx, userId, endpointId, page),
    redeliver: (userId: string, endpointId: string, deliveryId: string) =>
      redeliver(wctx, userId, endpointId, deliveryId),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
