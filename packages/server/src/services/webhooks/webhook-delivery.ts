// The webhook worker (contract section 7). Due deliveries are sent side by side under the bounds of
// domain/webhooks/webhook-scheduling.ts — one in flight per endpoint (a lease on the endpoint row, so across instances
// too), a few per user, a global cap, free slots shared round-robin between users — so one account's endpoints
// that never answer cannot delay anyone else's events. Each delivery is signed `Agent-Wallet-Signature:
// t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, one v1 per signing secret (two during a
// rotation's overlap). Any 2xx within 10 s is delivered; anything else is retried with exponential backoff and
// jitter for at least 24 hours, then marked failed; an endpoint that does not answer at all gets nothing more
// until its backoff has passed. At least once: the delivery row is the truth — a crash mid-delivery leaves it
// pending and the endpoint's lease runs out — and receivers deduplicate on the event id.
import { createHmac, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Selectable, sql } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import {
  type DueEndpoint,
  pickEndpoints,
  roundGoesOn,
  WEBHOOK_IN_FLIGHT_MAX,
  WEBHOOK_IN_FLIGHT_PER_USER,
} from '../../domain/webhooks/webhook-scheduling.ts';
import { signingSecrets } from '../../domain/webhooks/webhook-secrets.ts';
import { checkWebhookUrl } from '../../domain/webhooks/webhook-url.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { hostAddresses } from './outbound-http.ts';
import { postJson } from './webhook-http.ts';

/** Retries stop (the delivery fails) once the event is this old. */
export const RETRY_WINDOW_MS = 24 * 60 * 60_000 + 60 * 60_000;
const BACKOFF_FIRST_MS = 30_000;
const BACKOFF_MAX_MS = 60 * 60_000;
const LEASE_MS = 60_000;
/** Due endpoints read per start: a few per user and at most this many, enough to fill every free slot. */
const DUE_READ_MAX = WEBHOOK_IN_FLIGHT_MAX * 2;
const DELIVERIES_READ_MAX = 10;

/** Pure: the wait after `attempts` failures: doubling from 30 s to at most an hour, ±20% jitter. */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_FIRST_MS * 2 ** Math.min(attempts - 1, 20), BACKOFF_MAX_MS);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Pure: when to try again after `attempts` failures; null when the retry window is over. */
export function nextAttemptMs(
  attempts: number,
  createdAtMs: number,
  nowMs: number,
  random: () => number = Math.random,
): number | null {
  return withinRetryWindow(nowMs + backoffMs(attempts, random), createdAtMs);
}

function withinRetryWindow(retryAtMs: number, createdAtMs: number): number | null {
  return retryAtMs - createdAtMs > RETRY_WINDOW_MS ? null : retryAtMs;
}

/** Pure: the signature header of a body sent at `unixSeconds`, one v1 per secret, in the order given. */
export function signatureHeader(secrets: readonly string[], unixSeconds: number, body: string): string {
  const v1 = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`,
  );
  return [`t=${unixSeconds}`, ...v1].join(',');
}

export interface DeliveryDeps {
  ctx: ServiceContext;
  allowPrivate: boolean;
  /** This process's lease holder id. */
  holder: string;
  /** A round that failed (the database): logged, the endpoint's lease runs out, the deliveries stay due. */
  onError: (error: unknown) => void;
}

export function deliveryHolder(): string {
  return randomBytes(12).toString('hex');
}

export interface WebhookWorker {
  /** Starts what is due, within the bounds, and returns: the deliveries go on (the background duty). */
  tick(): Promise<void>;
  /** Starts what is due and waits for it: how many were delivered (tests, by hand). */
  deliverDue(): Promise<number>;
  /** Starts nothing more; deliveries in flight are cut short (left pending: sent again later) and awaited. */
  stop(): Promise<void>;
}

export function createWebhookWorker(deps: DeliveryDeps): WebhookWorker {
  /** Endpoint id → user id of every round running in this process. */
  const inFlight = new Map<string, string>();
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  // Starts run one at a time (a background tick and a call by hand may overlap), so the bounds hold.
  let starting: Promise<unknown> = Promise.resolve();

  async function startDue(): Promise<Array<Promise<number>>> {
    if (stopping.signal.aborted || inFlight.size >= WEBHOOK_IN_FLIGHT_MAX) return [];
    const nowMs = deps.ctx.clock.nowMs();
    const started: Array<Promise<number>> = [];
    for (const pick of pickEndpoints(await dueEndpoints(deps, nowMs), inFlight)) {
      // A round that just released its lease may still be listed here for a moment.
      if (stopping.signal.aborted || inFlight.has(pick.endpointId)) continue;
      if (!(await takeLease(deps, pick.endpointId, nowMs))) continue;
      inFlight.set(pick.endpointId, pick.userId);
      const round = endpointRound(deps, pick.endpointId, stopping.signal);
      // Reported here, whoever else awaits the round: a background round has nobody else to tell.
      const settled: Promise<void> = round.then(() => undefined, deps.onError);
      running.add(settled);
      void settled.then(() => {
        inFlight.delete(pick.endpointId);
        running.delete(settled);
      });
      started.push(round);
    }
    return started;
  }

  function start(): Promise<Array<Promise<number>>> {
    const next = starting.then(startDue);
    starting = next.catch(() => undefined);
    return next;
  }

  return {
    async tick() {
      await start();
    },
    async deliverDue() {
      const delivered = await Promise.all(await start());
      return delivered.reduce((a, b) => a + b, 0);
    },
    async stop() {
      stopping.abort();
      await starting;
      await Promise.all([...running]);
    },
  };
}

/**
 * Endpoints with a delivery due, not leased and not backing off: at most WEBHOOK_IN_FLIGHT_PER_USER per user
 * (more could not start), oldest due first, so users below their bound are never crowded out of the read.
 */
async function dueEndpoints(deps: DeliveryDeps, nowMs: number): Promise<DueEndpoint[]> {
  const now = BigInt(nowMs);
  const rows = await deps.ctx.store.db
    .with('due', (db) =>
      db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .select(['d.endpoint_id', 'e.user_id'])
        .select((eb) => eb.fn.min('d.next_attempt_at_ms').as('due_ms'))
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at_ms', '<=', now)
        .where((eb) => eb.or([eb('e.lease_until_ms', 'is', null), eb('e.lease_until_ms', '<', now)]))
        .where((eb) => eb.or([eb('e.backoff_until_ms', 'is', null), eb('e.backoff_until_ms', '<=', now)]))
        .groupBy(['d.endpoint_id', 'e.user_id']),
    )
    .with('ranked', (db) =>
      db
        .selectFrom('due')
        .selectAll()
        .select(
          sql<bigint>`row_number() over (partition by user_id order by due_ms, endpoint_id)`.as('user_rank'),
        ),
    )
    .selectFrom('ranked')
    .select(['endpoint_id', 'user_id', 'due_ms'])
    .where('user_rank', '<=', BigInt(WEBHOOK_IN_FLIGHT_PER_USER))
    .orderBy('due_ms')
    .orderBy('endpoint_id')
    .limit(DUE_READ_MAX)
    .execute();
  return rows.map((r) => ({ endpointId: r.endpoint_id, userId: r.user_id, dueMs: Number(r.due_ms) }));
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

/**
 * Gives the endpoint back: no lease, the backoff this round ended with (null: none), and a previous secret
 * whose overlap is over is dropped rather than kept at rest until the next rotation.
 */
async function releaseLease(deps: DeliveryDeps, endpointId: string, backoffUntilMs: number | null) {
  const now = BigInt(deps.ctx.clock.nowMs());
  await deps.ctx.store.db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      lease_holder: null,
      lease_until_ms: null,
      backoff_until_ms: backoffUntilMs === null ? null : BigInt(backoffUntilMs),
      previous_secret: eb
        .case()
        .when('previous_secret_expires_at_ms', '<=', now)
        .then(sql<string | null>`null`)
        .else(eb.ref('previous_secret'))
        .end(),
    }))
    .where('id', '=', endpointId)
    .where('lease_holder', '=', deps.holder)
    .execute();
}

/**
 * One endpoint's round, under its lease: its due deliveries oldest first, until roundGoesOn says stop. An
 * attempt with no answer ends the round and backs the endpoint off until that delivery's retry.
 */
async function endpointRound(deps: DeliveryDeps, endpointId: string, stopping: AbortSignal): Promise<number> {
  let backoffUntilMs: number | null = null;
  try {
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
      .limit(DELIVERIES_READ_MAX)
      .execute();
    const startedMs = performance.now();
    let delivered = 0;
    let unanswered = false;
    for (const [attempted, delivery] of due.entries()) {
      const elapsedMs = performance.now() - startedMs;
      if (!roundGoesOn({ attempted, unanswered, elapsedMs, stopping: stopping.aborted })) break;
      const outcome = await attempt(deps, endpoint, delivery, stopping);
      if (outcome === null) break;
      if (outcome.ok) delivered += 1;
      unanswered = !outcome.answered;
      if (unanswered) backoffUntilMs = outcome.retryAtMs;
    }
    return delivered;
  } finally {
    await releaseLease(deps, endpointId, backoffUntilMs);
  }
}

interface Outcome {
  ok: boolean;
  /** The endpoint answered (any status). */
  answered: boolean;
  /** When this delivery would be tried again, its retry window aside. */
  retryAtMs: number;
}

/** One attempt, recorded on the delivery row; null when shutdown cut it short (nothing recorded). */
async function attempt(
  deps: DeliveryDeps,
  endpoint: Selectable<WebhookEndpointsTable>,
  delivery: Selectable<WebhookDeliveriesTable>,
  stopping: AbortSignal,
): Promise<Outcome | null> {
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
  const sentMs = deps.ctx.clock.nowMs();
  const secrets = signingSecrets(
    {
      secret: endpoint.secret,
      previousSecret: endpoint.previous_secret,
      previousSecretExpiresAtMs:
        endpoint.previous_secret_expires_at_ms === null
          ? null
          : Number(endpoint.previous_secret_expires_at_ms),
    },
    sentMs,
  );
  const checked = checkWebhookUrl(endpoint.url, deps.allowPrivate, hostAddresses());
  const answer = checked.ok
    ? await postJson(
        checked.url,
        body,
        {
          'agent-wallet-signature': signatureHeader(secrets, Math.floor(sentMs / 1000), body),
          'user-agent': 'agent-wallet-webhooks/1',
        },
        deps.allowPrivate,
        stopping,
      )
    : { status: null, error: `the endpoint URL ${checked.reason}` };
  if (stopping.aborted && answer.status === null) return null;
  const attempts = Number(delivery.attempts) + 1;
  const ok = answer.error === null;
  const nowMs = deps.ctx.clock.nowMs();
  const retryAtMs = nowMs + backoffMs(attempts);
  const next = ok ? null : withinRetryWindow(retryAtMs, Number(delivery.created_at_ms));
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: ok ? 'delivered' : next === null ? 'failed' : 'pending',
      attempts: BigInt(attempts),
      next_attempt_at_ms: next === null ? null : BigInt(next),
      response_status: answer.status === null ? null : BigInt(answer.status),
      last_error: answer.error,
      updated_at_ms: BigInt(nowMs),
    })
    .where('id', '=', delivery.id)
    .where('status', '=', 'pending')
    .execute();
  return { ok, answered: answer.status !== null, retryAtMs };
}
