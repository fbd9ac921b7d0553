// Property tests (fast-check) of the webhook worker's picks: for random due endpoints, users and deliveries in
// flight, the picks never pass the global or per-user bound, never start an endpoint twice, fill every slot
// they can, serve users round-robin (fewest in flight first) and each user's oldest due endpoints first.
// A failure prints its seed: FC_SEED=<seed> reproduces it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  DELIVERIES_PER_ROUND_MAX,
  type DueEndpoint,
  ENDPOINT_ROUND_BUDGET_MS,
  pickEndpoints,
  roundGoesOn,
} from './webhook-scheduling.ts';

const RUNS = Number(process.env.FC_RUNS ?? 500);
const seed = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };

const userArb = fc.constantFrom('u1', 'u2', 'u3', 'u4', 'u5');
const endpointArb = fc.integer({ min: 0, max: 40 }).map((n) => `whk_${n}`);

/** Endpoints belong to one user each: the user is derived from the endpoint, as in the database. */
const owner = (endpointId: string, users: readonly string[]) =>
  users[Number(endpointId.slice(4)) % users.length]!;

const scenarioArb = fc
  .record({
    users: fc.uniqueArray(userArb, { minLength: 1, maxLength: 5 }),
    due: fc.array(fc.record({ endpointId: endpointArb, dueMs: fc.integer({ min: 0, max: 100 }) }), {
      maxLength: 60,
    }),
    inFlight: fc.uniqueArray(endpointArb, { maxLength: 12 }),
    total: fc.integer({ min: 0, max: 16 }),
    perUser: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ users, due, inFlight, total, perUser }) => ({
    due: due.map((d): DueEndpoint => ({ ...d, userId: owner(d.endpointId, users) })),
    inFlight: new Map(inFlight.map((id) => [id, owner(id, users)])),
    limits: { total, perUser },
  }));

function countByUser(ids: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

test('picks stay within the bounds, start each endpoint once, and fill every slot they can', () => {
  fc.assert(
    fc.property(scenarioArb, ({ due, inFlight, limits }) => {
      const picks = pickEndpoints(due, inFlight, limits);
      const ids = picks.map((p) => p.endpointId);
      assert.equal(new Set(ids).size, ids.length, 'an endpoint started twice');
      for (const p of picks) {
        assert.ok(!inFlight.has(p.endpointId), 'an endpoint in flight started again');
        assert.ok(
          due.some((d) => d.endpointId === p.endpointId),
          'a pick that was not due',
        );
      }
      assert.ok(picks.length <= Math.max(0, limits.total - inFlight.size), 'past the global bound');
      const before = countByUser(inFlight.values());
      const after = countByUser([...inFlight.values(), ...picks.map((p) => p.userId)]);
      for (const [userId, n] of countByUser(picks.map((p) => p.userId))) {
        assert.ok(n + (before.get(userId) ?? 0) <= Math.max(limits.perUser, before.get(userId) ?? 0));
      }
      if (inFlight.size + picks.length < limits.total) {
        const started = new Set(ids);
        for (const d of due) {
          if (started.has(d.endpointId) || inFlight.has(d.endpointId)) continue;
          assert.ok(
            (after.get(d.userId) ?? 0) >= limits.perUser,
            `${d.endpointId} left waiting with a free slot and its user under the bound`,
          );
        }
      }
    }),
    { numRuns: RUNS, ...seed },
  );
});

test('users are served round-robin, fewest in flight first; each user its oldest due endpoints first', () => {
  fc.assert(
    fc.property(scenarioArb, ({ due, inFlight, limits }) => {
      const picks = pickEndpoints(due, inFlight, limits);
      const started = new Set(picks.map((p) => p.endpointId));
      const after = countByUser([...inFlight.values(), ...picks.map((p) => p.userId)]);
      const waiting = due.filter((d) => !started.has(d.endpointId) && !inFlight.has(d.endpointId));
      for (const w of waiting) {
        const mine = after.get(w.userId) ?? 0;
        if (mine >= limits.perUser) continue;
        // w's user was eligible at every pick: whoever got a slot had at most as many in flight then.
        for (const p of picks) {
          assert.ok(
            (after.get(p.userId) ?? 0) - 1 <= mine,
            `${p.userId} got a slot while ${w.userId} had fewer in flight and waited`,
          );
        }
        // Within a user, nothing younger started while an older one waits.
        for (const p of picks.filter((q) => q.userId === w.userId)) {
          const older = due.filter((d) => d.endpointId === p.endpointId).some((d) => d.dueMs <= w.dueMs);
          assert.ok(older, `${p.endpointId} started before the older ${w.endpointId}`);
        }
      }
    }),
    { numRuns: RUNS, ...seed },
  );
});

test('a victim with one due endpoint gets a slot ahead of an attacker with older, more numerous ones', () => {
  const attacker = Array.from({ length: 20 }, (_, i) => ({
    endpointId: `a${i}`,
    userId: 'attacker',
    dueMs: i,
  }));
  const victim = { endpointId: 'v', userId: 'victim', dueMs: 1_000 };
  const inFlight = new Map([
    ['x1', 'attacker'],
    ['x2', 'attacker'],
  ]);
  const picks = pickEndpoints([...attacker, victim], inFlight, { total: 3, perUser: 4 });
  assert.deepEqual(
    picks.map((p) => p.endpointId),
    ['v'],
  );
  assert.deepEqual(
    pickEndpoints([...attacker, victim], new Map(), { total: 16, perUser: 4 }).map((p) => p.endpointId),
    ['a0', 'v', 'a1', 'a2', 'a3'],
  );
});

test('a round stops at an unanswered attempt, after its delivery cap, past its budget, or at shutdown', () => {
  const base = { attempted: 0, unanswered: false, elapsedMs: 0, stopping: false };
  assert.equal(roundGoesOn(base), true);
  assert.equal(roundGoesOn({ ...base, attempted: 1, unanswered: true }), false);
  assert.equal(roundGoesOn({ ...base, attempted: DELIVERIES_PER_ROUND_MAX - 1 }), true);
  assert.equal(roundGoesOn({ ...base, attempted: DELIVERIES_PER_ROUND_MAX }), false);
  assert.equal(roundGoesOn({ ...base, elapsedMs: ENDPOINT_ROUND_BUDGET_MS - 1 }), true);
  assert.equal(roundGoesOn({ ...base, elapsedMs: ENDPOINT_ROUND_BUDGET_MS }), false);
  assert.equal(roundGoesOn({ ...base, stopping: true }), false);
});
