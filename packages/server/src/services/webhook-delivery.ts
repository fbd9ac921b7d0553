// The webhook worker: due deliveries are sent one at a time per endpoint across instances (a lease on the
// endpoint row), signed `Agent-Wallet-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
// Any 2xx within 10 s is delivered; anything else is retried with exponential backoff and jitter for at least
// 24 hours, then marked failed. At least once: receivers deduplicate on the event id.
import { createHmac, randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { isoFromMs } from '../clock.ts';
import { checkWebhookUrl } from '../domain/webhook-url.ts';
import type { WebhookDeliveriesTable } from '../store/schema.ts';
import type { ServiceContext } from './context.ts';
import { hostAddresses } from './outbound-http.ts';
import { postJson } from './webhook-http.ts';

/** Retries stop (the delivery fails) once the event is this old. */
export const RETRY_WINDOW_MS = 24 * 60 * 60_000 + 60 * 60_000;
const BACKOFF_FIRST_MS = 30_000;
const BACKOFF_MAX_MS = 60 * 60_000;
const ENDPOINTS_PER_ROUND_MAX = 16;
const DELIVERIES_PER_ENDPOINT_MAX = 10;
const LEASE_MS = 60_000;

/** Pure: when to try again after `attempts` failures; null when the retry window is over. */
export function nextAttemptMs(
  attempts: number,
  createdAtMs: number,
  nowMs: number,
  random: () => number = Math.random,
): number | null {
  const base = Math.min(BACKOFF_FIRST_MS * 2 ** Math.min(attempts - 1, 20), BACKOFF_MAX_MS);
  const jittered = base * (0.8 + 0.4 * random());
  const next = nowMs + Math.round(jittered);
  return next - createdAtMs > RETRY_WINDOW_MS ? null : next;
}

/** Pure: the signature header of a body sent at `unixSeconds`. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

export interface DeliveryDeps {
  ctx: ServiceContext;
  allowPrivate: boolean;
  /** This process's lease holder id. */
  holder: string;
}

export function deliveryHolder(): string {
  return randomBytes(12).toString('hex');
}

/** One round: each endpoint with due deliveries, under its lease, oldest delivery first. */
export async function deliverDue(deps: DeliveryDeps): Promise<number> {
  const nowMs = deps.ctx.clock.nowMs();
  const endpoints = await deps.ctx.store.db
    .selectFrom('webhook_deliveries')
    .select('endpoint_id')
    .distinct()
    .where('status', '=', 'pending')
    .where('next_attempt_at_ms', '<=', BigInt(nowMs))
    .limit(ENDPOINTS_PER_ROUND_MAX)
    .execute();
  let delivered = 0;
  for (const { endpoint_id } of endpoints) {
    if (!(await takeLease(deps, endpoint_id, nowMs))) continue;
    try {
      delivered += await deliverForEndpoint(deps, endpoint_id);
    } finally {
      await deps.ctx.store.db
        .updateTable('webhook_endpoints')
        .set({ lease_holder: null, lease_until_ms: null })
        .where('id', '=', endpoint_id)
        .where('lease_holder', '=', deps.holder)
        .execute();
    }
  }
  return delivered;
}

async function takeLease(deps: DeliveryDeps, endpointId: string, nowMs: number): Promise<boolean> {
  const taken = await deps.ctx.store.db
    .updateTable('webhook_endpoints')
    .set({ lease_holder: deps.holder, lease_until_ms: BigInt(nowMs + LEASE_MS) })
    .where('id', '=', endpointId)
    .where((eb) =>
      eb.or([
        eb('lease_until_ms', 'is', null),
        eb('lease_until_ms', '<', BigInt(nowMs)),
        eb('lease_holder', '=', deps.holder),
      ]),
    )
    .executeTakeFirst();
  return taken.numUpdatedRows === 1n;
}

async function deliverForEndpoint(deps: DeliveryDeps, endpointId: string): Promise<number> {
  const { db } = deps.ctx.store;
  const endpoint = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', endpointId)
    .executeTakeFirst();
  if (endpoint === undefined) return 0;
  const due = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('next_attempt_at_ms', '<=', BigInt(deps.ctx.clock.nowMs()))
    .orderBy('created_at_ms', 'asc')
    .orderBy('id', 'asc')
    .limit(DELIVERIES_PER_ENDPOINT_MAX)
    .execute();
  let delivered = 0;
  for (const delivery of due) {
    if (await attempt(deps, endpoint, delivery)) delivered += 1;
  }
  return delivered;
}

async function attempt(
  deps: DeliveryDeps,
  endpoint: { url: string; secret: string },
  delivery: Selectable<WebhookDeliveriesTable>,
): Promise<boolean> {
  const { db } = deps.ctx.store;
  const event = await db
    .selectFrom('webhook_events')
    .selectAll()
    .where('id', '=', delivery.event_id)
    .executeTakeFirstOrThrow();
  const body = JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: isoFromMs(event.created_at_ms),
    data: JSON.parse(event.data_json) as unknown,
  });
  const nowMs = deps.ctx.clock.nowMs();
  const checked = checkWebhookUrl(endpoint.url, deps.allowPrivate, hostAddresses());
  const answer = checked.ok
    ? await postJson(
        checked.url,
        body,
        {
          'agent-wallet-signature': signatureHeader(endpoint.secret, Math.floor(nowMs / 1000), body),
          'user-agent': 'agent-wallet-webhooks/1',
        },
        deps.allowPrivate,
      )
    : { status: null, error: `the endpoint URL ${checked.reason}` };
  const attempts = Number(delivery.attempts) + 1;
  const ok = answer.error === null;
  const next = ok ? null : nextAttemptMs(attempts, Number(delivery.created_at_ms), deps.ctx.clock.nowMs());
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: ok ? 'delivered' : next === null ? 'failed' : 'pending',
      attempts: BigInt(attempts),
      next_attempt_at_ms: next === null ? null : BigInt(next),
      response_status: answer.status === null ? null : BigInt(answer.status),
      last_error: answer.error,
      updated_at_ms: BigInt(deps.ctx.clock.nowMs()),
    })
    .where('id', '=', delivery.id)
    .where('status', '=', 'pending')
    .execute();
  return ok;
}
