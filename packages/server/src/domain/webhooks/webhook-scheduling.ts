// Which webhook endpoints the worker serves next, and how long one endpoint keeps its slot. Pure: the worker
// (services/webhooks/webhook-delivery.ts) reads the due endpoints and what it has in flight, and follows these decisions.
//
// Why: one account whose endpoints never answer must not delay anyone else's events. Deliveries run side by side
// under three bounds — one in flight per endpoint (each endpoint's events go out in order), a few per user, a
// global cap — and free slots go to the users with the fewest deliveries in flight first, then to the oldest
// due delivery, so every user with something due is served round-robin. An endpoint gives its slot back when
// an attempt gets no answer (a hanging endpoint costs one timeout per round, then backs off), after a few
// deliveries, or once its round has run for a while. An endpoint that answers, even with an error, keeps its
// round: one refused event must not hold back the ones after it.

/** Endpoints being delivered to at once, by one instance. */
export const WEBHOOK_IN_FLIGHT_MAX = 32;
/** Of those, at most this many belong to one user: it takes WEBHOOK_IN_FLIGHT_MAX / this users to fill them. */
export const WEBHOOK_IN_FLIGHT_PER_USER = 4;
/** Deliveries one endpoint gets in a round before it gives its slot back. */
export const DELIVERIES_PER_ROUND_MAX = 10;
/**
 * No attempt starts after this long in one endpoint's round: with the 10 s delivery timeout a round ends well
 * inside the endpoint's 60 s lease, so another instance never takes the endpoint while this one still sends.
 */
export const ENDPOINT_ROUND_BUDGET_MS = 30_000;

export interface DueEndpoint {
  endpointId: string;
  userId: string;
  /** When its oldest due delivery became due. */
  dueMs: number;
}

export interface InFlightLimits {
  total: number;
  perUser: number;
}

const LIMITS: InFlightLimits = { total: WEBHOOK_IN_FLIGHT_MAX, perUser: WEBHOOK_IN_FLIGHT_PER_USER };

const byDue = (a: DueEndpoint, b: DueEndpoint) =>
  a.dueMs - b.dueMs || (a.endpointId < b.endpointId ? -1 : a.endpointId > b.endpointId ? 1 : 0);

/** Each user's endpoints that may start now (not in flight, each once), oldest due first. */
function queuesByUser(
  due: readonly DueEndpoint[],
  inFlight: ReadonlyMap<string, string>,
): Map<string, DueEndpoint[]> {
  const seen = new Set<string>();
  const queues = new Map<string, DueEndpoint[]>();
  for (const endpoint of [...due].sort(byDue)) {
    if (inFlight.has(endpoint.endpointId) || seen.has(endpoint.endpointId)) continue;
    seen.add(endpoint.endpointId);
    const queue = queues.get(endpoint.userId) ?? [];
    queue.push(endpoint);
    queues.set(endpoint.userId, queue);
  }
  return queues;
}

/**
 * The endpoints to start now, in order, given what is in flight (endpoint id → user id). Each free slot goes
 * to the user with the fewest in flight (started ones counted), ties to the oldest due delivery; a user at
 * `perUser` gets none, and nothing starts past `total`.
 */
export function pickEndpoints(
  due: readonly DueEndpoint[],
  inFlight: ReadonlyMap<string, string>,
  limits: InFlightLimits = LIMITS,
): DueEndpoint[] {
  const queues = queuesByUser(due, inFlight);
  const counts = new Map<string, number>();
  for (const userId of inFlight.values()) counts.set(userId, (counts.get(userId) ?? 0) + 1);
  const picked: DueEndpoint[] = [];
  let free = limits.total - inFlight.size;
  while (free > 0) {
    let best: DueEndpoint | undefined;
    for (const [userId, queue] of queues) {
      const head = queue[0];
      const count = counts.get(userId) ?? 0;
      if (head === undefined || count >= limits.perUser) continue;
      const bestCount = best === undefined ? Number.POSITIVE_INFINITY : (counts.get(best.userId) ?? 0);
      if (best === undefined || count < bestCount || (count === bestCount && byDue(head, best) < 0))
        best = head;
    }
    if (best === undefined) break;
    queues.get(best.userId)!.shift();
    counts.set(best.userId, (counts.get(best.userId) ?? 0) + 1);
    picked.push(best);
    free -= 1;
  }
  return picked;
}

export interface RoundState {
  /** Attempts made so far in this round. */
  attempted: number;
  /** The last attempt got no answer: a timeout, a refused connection, a refused address. */
  unanswered: boolean;
  elapsedMs: number;
  /** The service is shutting down. */
  stopping: boolean;
}

/** Whether one endpoint's round makes another attempt. */
export function roundGoesOn(round: RoundState): boolean {
  return (
    !round.unanswered &&
    !round.stopping &&
    round.attempted < DELIVERIES_PER_ROUND_MAX &&
    round.elapsedMs < ENDPOINT_ROUND_BUDGET_MS
  );
}
