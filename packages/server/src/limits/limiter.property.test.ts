// Model-based (fast-check) test of the sliding-window limiter: for random limits, windows and request times,
// never more than N requests are accepted in any window-long span, a refused client that waits exactly its
// Retry-After is accepted, and peek always agrees with what hit then decides. A failure prints its seed:
// FC_SEED=<seed> reproduces it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MemoryLimitStore } from './store.ts';

const RUNS = Number(process.env.FC_RUNS ?? 300);
const seed = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };

interface Step {
  advanceMs: number;
}

const stepsArb = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ advanceMs: fc.integer({ min: 0, max: 2_000 }) }) },
    { weight: 1, arbitrary: fc.record({ advanceMs: fc.integer({ min: 0, max: 90_000 }) }) },
  ),
  { minLength: 1, maxLength: 200 },
);

test('never more than N accepted in any window; Retry-After is always enough; peek agrees with hit', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 12 }),
      fc.constantFrom(1_000, 60_000, 900_000),
      stepsArb,
      async (limit, windowMs, steps: Step[]) => {
        let nowMs = 1_700_000_000_000;
        const store = new MemoryLimitStore({
          nowMs: () => nowMs,
          maxBuckets: 10,
          sweepIntervalMs: 1_000_000,
        });
        const accepted: number[] = [];
        try {
          for (const step of steps) {
            nowMs += step.advanceMs;
            const peeked = await store.peek('k', limit, windowMs);
            const decision = await store.hit('k', limit, windowMs);
            assert.equal(peeked.allowed, decision.allowed, 'peek agrees with hit');
            if (decision.allowed) {
              accepted.push(nowMs);
              continue;
            }
            // Waiting exactly Retry-After is enough: by the model, fewer than N acceptances are still in the
            // window then (the clock never runs backwards here, as the store assumes).
            assert.ok(decision.retryAfterSeconds >= 1);
            const retryAtMs = nowMs + decision.retryAfterSeconds * 1_000;
            const stillCounted = accepted.filter((t) => t > retryAtMs - windowMs).length;
            assert.ok(stillCounted < limit, `after Retry-After ${stillCounted} of ${limit} still counted`);
          }
          // The model: of any N + 1 consecutive acceptances, the first has left the window before the last.
          for (let i = 0; i + limit < accepted.length; i += 1) {
            const span = accepted[i + limit]! - accepted[i]!;
            assert.ok(span >= windowMs, `${limit + 1} accepted within ${span} ms (window ${windowMs})`);
          }
        } finally {
          await store.close();
        }
      },
    ),
    { numRuns: RUNS, includeErrorInReport: true, ...seed },
  );
});
