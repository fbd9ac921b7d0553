import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { ManualClock } from '../clock.ts';
import { DEFAULT_LIMITS_PER_MINUTE, RATE_LIMIT_WINDOW_MS } from './rules.ts';
import {
  FULL_STORE_RETRY_AFTER_SECONDS,
  type LimitDecision,
  MemoryLimitStore,
  SWEEP_CHUNK_MAX,
} from './store.ts';

const WINDOW_MS = RATE_LIMIT_WINDOW_MS;

/** A decision without the entry an accepted hit names (its value is the store's; release() is tested on its own). */
function counted(decision: LimitDecision): Omit<LimitDecision, 'entry'> {
  assert.equal(
    decision.entry !== undefined,
    decision.allowed,
    'an accepted hit, and only it, names its entry',
  );
  const { entry: _entry, ...rest } = decision;
  return rest;
}

function makeStore(options: { maxBuckets?: number; sweepIntervalMs?: number } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryLimitStore({
    nowMs: () => clock.nowMs(),
    maxBuckets: options.maxBuckets ?? 1_000_000,
    sweepIntervalMs: options.sweepIntervalMs ?? 60_000,
  });
  return { clock, store };
}

test('every default limit: a burst of N is accepted, the N+1th refused until the first leaves', async () => {
  for (const [bucket, limit] of Object.entries(DEFAULT_LIMITS_PER_MINUTE)) {
    const { clock, store } = makeStore();
    for (let i = 1; i <= limit; i += 1) {
      const decision = await store.hit(bucket, limit, WINDOW_MS);
      assert.deepEqual(counted(decision), {
        allowed: true,
        limit,
        remaining: limit - i,
        resetSeconds: 60,
        retryAfterSeconds: 0,
      });
    }
    const refused = await store.hit(bucket, limit, WINDOW_MS);
    assert.deepEqual(refused, {
      allowed: false,
      limit,
      remaining: 0,
      resetSeconds: 60,
      retryAfterSeconds: 60,
    });
    // Here (oldest + window - now) is a whole number of seconds, so one ms less than Retry-After is too early.
    clock.advanceMs(59_999);
    const early = await store.hit(bucket, limit, WINDOW_MS);
    assert.deepEqual(
      early,
      { allowed: false, limit, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 },
      bucket,
    );
    clock.advanceMs(1);
    const onTime = await store.hit(bucket, limit, WINDOW_MS);
    // The whole burst left at once; this request is the only one counted now.
    assert.deepEqual(counted(onTime), {
      allowed: true,
      limit,
      remaining: limit - 1,
      resetSeconds: 60,
      retryAfterSeconds: 0,
    });
    await store.close();
  }
});

test('requests spread over the window: headers count down and Retry-After is exactly enough', async () => {
  for (const limit of new Set(Object.values(DEFAULT_LIMITS_PER_MINUTE))) {
    const { clock, store } = makeStore();
    const startMs = clock.nowMs();
    const stepMs = Math.floor(40_000 / limit) + 7; // irregular offsets: rounding up matters
    for (let i = 0; i < limit; i += 1) {
      const decision = await store.hit('b', limit, WINDOW_MS);
      assert.equal(decision.allowed, true);
      assert.equal(decision.remaining, limit - 1 - i);
      assert.equal(decision.resetSeconds, Math.ceil((startMs + WINDOW_MS - clock.nowMs()) / 1000));
      clock.advanceMs(stepMs);
    }
    const refused = await store.hit('b', limit, WINDOW_MS);
    const expectedRetrySeconds = Math.ceil((startMs + WINDOW_MS - clock.nowMs()) / 1000);
    assert.deepEqual(refused, {
      allowed: false,
      limit,
      remaining: 0,
      resetSeconds: expectedRetrySeconds,
      retryAfterSeconds: expectedRetrySeconds,
    });
    clock.advanceSeconds(refused.retryAfterSeconds);
    assert.equal(
      (await store.hit('b', limit, WINDOW_MS)).allowed,
      true,
      `limit ${limit}: waited Retry-After`,
    );
    await store.close();
  }
});

test('buckets are independent', async () => {
  const { store } = makeStore();
  for (let i = 0; i < 5; i += 1)
    assert.equal((await store.hit('login|ip:1.1.1.1', 5, WINDOW_MS)).allowed, true);
  assert.equal((await store.hit('login|ip:1.1.1.1', 5, WINDOW_MS)).allowed, false);
  const other = await store.hit('login|ip:2.2.2.2', 5, WINDOW_MS);
  assert.deepEqual(counted(other), {
    allowed: true,
    limit: 5,
    remaining: 4,
    resetSeconds: 60,
    retryAfterSeconds: 0,
  });
  assert.equal((await store.hit('signup|ip:1.1.1.1', 3, WINDOW_MS)).allowed, true);
  assert.equal(store.size(), 3);
  await store.close();
});

test('the window slides: a burst at second 59 still counts at second 61 (a fixed window would reset)', async () => {
  const { clock, store } = makeStore();
  const minuteStartMs = clock.nowMs();
  clock.setMs(minuteStartMs + 59_000);
  for (let i = 0; i < 5; i += 1) assert.equal((await store.hit('login', 5, WINDOW_MS)).allowed, true);
  clock.setMs(minuteStartMs + 61_000);
  for (let i = 0; i < 5; i += 1) {
    const decision = await store.hit('login', 5, WINDOW_MS);
    assert.deepEqual(decision, {
      allowed: false,
      limit: 5,
      remaining: 0,
      resetSeconds: 58,
      retryAfterSeconds: 58,
    });
  }
  clock.setMs(minuteStartMs + 118_999);
  assert.equal((await store.hit('login', 5, WINDOW_MS)).allowed, false);
  clock.setMs(minuteStartMs + 119_000);
  for (let i = 0; i < 5; i += 1) assert.equal((await store.hit('login', 5, WINDOW_MS)).allowed, true);
  assert.equal((await store.hit('login', 5, WINDOW_MS)).allowed, false);
  await store.close();
});

test('refused requests are not counted: hammering a full bucket does not delay its recovery', async () => {
  const { clock, store } = makeStore();
  const startMs = clock.nowMs();
  for (let i = 0; i < 3; i += 1) assert.equal((await store.hit('signup', 3, WINDOW_MS)).allowed, true);
  for (let i = 0; i < 10_000; i += 1) {
    clock.setMs(startMs + 1 + Math.floor((i * 59_998) / 10_000));
    assert.equal((await store.hit('signup', 3, WINDOW_MS)).allowed, false);
  }
  clock.setMs(startMs + WINDOW_MS);
  for (let i = 0; i < 3; i += 1) assert.equal((await store.hit('signup', 3, WINDOW_MS)).allowed, true);
  await store.close();
});

/** Deterministic PRNG (mulberry32) so a failing run can be replayed from its seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The contract's rule, brute force: the full history of accepted times, scanned on every request. */
class ReferenceLimiter {
  readonly accepted: number[] = [];
  hit(nowMs: number, limit: number, windowMs: number): LimitDecision {
    const inWindow = this.accepted.filter((t) => t > nowMs - windowMs);
    const allowed = inWindow.length < limit;
    if (allowed) {
      this.accepted.push(nowMs);
      inWindow.push(nowMs);
    }
    const untilLeaves = (t: number) => Math.max(0, Math.ceil((t + windowMs - nowMs) / 1000));
    const oldest = inWindow[0];
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - inWindow.length),
      resetSeconds: oldest === undefined ? 0 : untilLeaves(oldest),
      retryAfterSeconds: allowed || oldest === undefined ? 0 : Math.max(1, untilLeaves(oldest)),
    };
  }
  countInWindow(nowMs: number, windowMs: number): number {
    return this.accepted.filter((t) => t > nowMs - windowMs).length;
  }
}

test('randomized: the store matches a brute-force model, and no window-long span holds more than N', async () => {
  const seed = Number(process.env.LIMITER_TEST_SEED ?? Date.now() % 1_000_000);
  const random = prng(seed);
  for (let round = 0; round < 40; round += 1) {
    const { clock, store } = makeStore();
    const limit = 1 + Math.floor(random() * 12);
    const windowMs = [1_000, 2_500, 60_000][Math.floor(random() * 3)]!;
    const reference = new ReferenceLimiter();
    for (let step = 0; step < 400; step += 1) {
      // Mostly small steps (bursts), sometimes nothing at all, sometimes a long pause.
      const roll = random();
      clock.advanceMs(
        roll < 0.2
          ? 0
          : roll < 0.9
            ? Math.floor(random() * (windowMs / 10))
            : Math.floor(random() * windowMs * 1.5),
      );
      const expected = reference.hit(clock.nowMs(), limit, windowMs);
      const actual = await store.hit('k', limit, windowMs);
      const context = `seed ${seed} round ${round} step ${step} limit ${limit} window ${windowMs}`;
      assert.deepEqual(counted(actual), expected, context);
      if (!actual.allowed) {
        // Waiting exactly Retry-After frees a slot (checked against the model, without disturbing the store).
        const later = clock.nowMs() + actual.retryAfterSeconds * 1000;
        assert.ok(reference.countInWindow(later, windowMs) < limit, `Retry-After too short: ${context}`);
      }
    }
    // Any span of windowMs holds at most `limit` accepted requests: the limit+1-th accepted request
    // after any accepted one comes at least a whole window later.
    const times = reference.accepted;
    for (let i = limit; i < times.length; i += 1) {
      assert.ok(times[i]! - times[i - limit]! >= windowMs, `span violated at ${i}, seed ${seed}`);
    }
    await store.close();
  }
});

test('100,000 one-off buckets (IPs hitting login) are all dropped once they leave the window', async () => {
  const { clock, store } = makeStore({ maxBuckets: 200_000 });
  for (let i = 0; i < 100_000; i += 1) {
    const ip = `10.${(i >> 16) & 0xff}.${(i >> 8) & 0xff}.${i & 0xff}`;
    assert.equal((await store.hit(`login|ip:${ip}`, 5, WINDOW_MS)).allowed, true);
    if (i % 1000 === 999) clock.advanceMs(10); // the flood takes one second
  }
  assert.equal(store.size(), 100_000);
  // The first thousand arrived at start, the last at start + 990 ms; the clock now reads start + 1 s.
  clock.advanceMs(WINDOW_MS - 1_000 - 1);
  assert.equal(store.sweep(), 0, 'nothing has left its window yet');
  clock.advanceMs(1);
  assert.equal(store.sweep(), 1_000, 'exactly the first thousand have left');
  clock.advanceMs(990);
  assert.equal(store.sweep(), 99_000);
  assert.equal(store.size(), 0);
  await store.close();
});

test('a flood of more buckets than maxBuckets: size stays bounded, live buckets are never evicted', async () => {
  const maxBuckets = 1_000;
  const { clock, store } = makeStore({ maxBuckets });
  // A victim fills its bucket first; evicting it would hand it (or an attacker) a fresh limit.
  for (let i = 0; i < 5; i += 1) assert.equal((await store.hit('login|victim', 5, WINDOW_MS)).allowed, true);
  let refusedNew = 0;
  for (let i = 0; i < 5_000; i += 1) {
    const decision = await store.hit(`login|ip:${i}`, 5, WINDOW_MS);
    if (!decision.allowed) {
      refusedNew += 1;
      assert.equal(decision.retryAfterSeconds, FULL_STORE_RETRY_AFTER_SECONDS);
      assert.equal(decision.remaining, 0);
    }
    assert.ok(store.size() <= maxBuckets, `size ${store.size()}`);
    if (i % 100 === 0) clock.advanceMs(1_000); // the flood lasts 50 s: nothing of it expires meanwhile
  }
  assert.equal(refusedNew, 5_000 - (maxBuckets - 1));
  assert.equal(
    (await store.hit('login|victim', 5, WINDOW_MS)).allowed,
    false,
    'the victim bucket is still full',
  );
  // Once the flood's buckets have left the window a new bucket sweeps a few of them and gets in.
  clock.advanceMs(WINDOW_MS);
  assert.equal((await store.hit('login|newcomer', 5, WINDOW_MS)).allowed, true);
  assert.ok(store.size() < maxBuckets);
  await store.close();
});

test('the background sweep runs on its interval', async () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const { clock, store } = makeStore({ sweepIntervalMs: 30_000 });
    for (let i = 0; i < 50; i += 1) await store.hit(`b${i}`, 5, WINDOW_MS);
    clock.advanceMs(WINDOW_MS);
    mock.timers.tick(29_999);
    assert.equal(store.size(), 50);
    mock.timers.tick(1);
    assert.equal(store.size(), 0);
    await store.close();
  } finally {
    mock.timers.reset();
  }
});

test('new buckets reclaim expired ones as they arrive, without waiting for the background sweep', async () => {
  const { clock, store } = makeStore();
  for (let i = 0; i < 1_000; i += 1) await store.hit(`old${i}`, 5, WINDOW_MS);
  await store.hit('live', 5, WINDOW_MS);
  clock.advanceMs(WINDOW_MS);
  await store.hit('live', 5, WINDOW_MS); // re-ordered to the back: it accepted a request just now
  for (let i = 0; i < 100; i += 1) await store.hit(`new${i}`, 5, WINDOW_MS);
  assert.equal(store.size(), 101, 'all 1000 expired buckets are gone, the live one and the new ones stay');
  const live = await store.hit('live', 5, WINDOW_MS);
  assert.equal(live.remaining, 3, 'the live bucket kept its count (its first request has left)');
  await store.close();
});

test('the background sweep drops a large backlog in chunks, yielding between them', async () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const { clock, store } = makeStore({ sweepIntervalMs: 1_000 });
    for (let i = 0; i < 2.5 * SWEEP_CHUNK_MAX; i += 1) store.hitSync(`b${i}`, 5, WINDOW_MS);
    clock.advanceMs(WINDOW_MS);
    mock.timers.tick(1_000);
    assert.equal(store.size(), 1.5 * SWEEP_CHUNK_MAX, 'one chunk per turn');
    await setImmediatePromise(); // the real event loop turns; the next chunks follow
    assert.equal(store.size(), 0.5 * SWEEP_CHUNK_MAX);
    await setImmediatePromise();
    assert.equal(store.size(), 0);
    await store.close();
  } finally {
    mock.timers.reset();
  }
});

test('a lowered limit: Retry-After waits for enough requests to leave, not just the oldest', async () => {
  const { clock, store } = makeStore();
  const startMs = clock.nowMs();
  for (let i = 0; i < 5; i += 1) {
    clock.setMs(startMs + i * 1_000);
    assert.equal((await store.hit('b', 5, WINDOW_MS)).allowed, true);
  }
  clock.setMs(startMs + 10_000);
  const refused = await store.hit('b', 2, WINDOW_MS);
  // Counted: 0 s, 1 s, 2 s, 3 s, 4 s. A second slot under limit 2 frees when the one at 3 s leaves.
  assert.deepEqual(refused, {
    allowed: false,
    limit: 2,
    remaining: 0,
    resetSeconds: 50,
    retryAfterSeconds: 53,
  });
  clock.advanceSeconds(53);
  assert.equal((await store.hit('b', 2, WINDOW_MS)).allowed, true);
  await store.close();
});

test('a clock stepping backwards keeps counting (never frees slots early)', async () => {
  const { clock, store } = makeStore();
  for (let i = 0; i < 3; i += 1) assert.equal((await store.hit('b', 3, WINDOW_MS)).allowed, true);
  clock.advanceMs(-30_000);
  const refused = await store.hit('b', 3, WINDOW_MS);
  assert.equal(refused.allowed, false);
  assert.ok(refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60);
  clock.advanceMs(30_000 + WINDOW_MS);
  assert.equal((await store.hit('b', 3, WINDOW_MS)).allowed, true);
  await store.close();
});

test('release gives back the one slot a hit took: the others keep their place and their expiry', async () => {
  const { clock, store } = makeStore();
  const first = await store.hit('code', 3, WINDOW_MS);
  clock.advanceMs(10_000);
  const second = await store.hit('code', 3, WINDOW_MS);
  clock.advanceMs(10_000);
  await store.hit('code', 3, WINDOW_MS);
  assert.equal((await store.hit('code', 3, WINDOW_MS)).allowed, false);
  assert.ok(first.entry !== undefined && second.entry !== undefined);
  await store.release('code', second.entry);
  const again = await store.hit('code', 3, WINDOW_MS);
  assert.equal(again.allowed, true);
  assert.equal(again.remaining, 0);
  // The oldest (the first hit) still leaves first: 40 s after the third hit's time it is gone, nothing else.
  assert.equal((await store.peek('code', 3, WINDOW_MS)).resetSeconds, 40);
  clock.advanceMs(40_000);
  assert.equal((await store.peek('code', 3, WINDOW_MS)).remaining, 1);
  // An entry already gone, or of a bucket that never was, changes nothing; a refused hit names none.
  await store.release('code', first.entry);
  await store.release('nothing', '1');
  assert.equal((await store.peek('code', 3, WINDOW_MS)).remaining, 1);
  await store.hit('code', 3, WINDOW_MS);
  assert.equal((await store.hit('code', 3, WINDOW_MS)).entry, undefined);
  await store.close();
});

test('programming errors are caught at the boundary', async () => {
  const { store } = makeStore();
  await assert.rejects(store.hit('', 5, WINDOW_MS), /bucket key/);
  await assert.rejects(store.hit('b', 0, WINDOW_MS), /limit out of bounds/);
  await assert.rejects(store.hit('b', 1.5, WINDOW_MS), /limit out of bounds/);
  await assert.rejects(store.hit('b', 5, 0), /window out of bounds/);
  await assert.rejects(store.hit('x'.repeat(2_000), 5, WINDOW_MS), /bucket key/);
  await store.close();
});

test('memory follows busy milliseconds, not requests: 20,000 hits in 40 ms hold 40 runs, released ones go', async () => {
  const { clock, store } = makeStore();
  const limit = 10_000_000;
  const entries: string[] = [];
  for (let ms = 0; ms < 40; ms += 1) {
    for (let i = 0; i < 500; i += 1) entries.push((await store.hit('flood', limit, WINDOW_MS)).entry!);
    clock.advanceMs(1);
  }
  assert.equal(store.runsHeld('flood'), 40);
  assert.equal((await store.peek('flood', limit, WINDOW_MS)).remaining, limit - 20_000);
  // Every hit of the first millisecond given back: its run goes, the other 39 stay.
  for (const entry of entries.slice(0, 500)) await store.release('flood', entry);
  assert.equal(store.runsHeld('flood'), 39);
  assert.equal((await store.peek('flood', limit, WINDOW_MS)).remaining, limit - 19_500);
  // The oldest still counted is the second millisecond's: the window's reset is measured from it.
  clock.advanceMs(WINDOW_MS - 40 + 1);
  assert.equal((await store.peek('flood', limit, WINDOW_MS)).remaining, limit - 19_000);
  assert.equal(store.runsHeld('flood'), 38);
});
