import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import {
  freePort,
  hasRedisServerBinary,
  startRedisServer,
  stopRedisServer,
} from '../../test/support/processes.ts';
import { probeService, REDIS_URL, uniqueName } from '../../test/support/services.ts';
import {
  createRedisClient,
  decisionFromScriptReply,
  RedisLimitStore,
  redisStatus,
  waitForRedisReady,
} from './redis-store.ts';
import { type LimitDecision, LimiterUnavailableError } from './store.ts';

const CLIENT_OPTIONS = { connectTimeoutMs: 1_000, commandTimeoutMs: 500 };
const READY_TIMEOUT_MS = 5_000;
// Before any test is registered, so that under CI=true a missing Redis fails the file with its message.
const probe = await probeService('Redis', REDIS_URL);

test('script replies become whole seconds, rounded up, Retry-After at least 1', () => {
  assert.deepEqual(decisionFromScriptReply([1, 4, 60_000, 0, '0', 'g1', 0], 5), {
    allowed: true,
    limit: 5,
    remaining: 4,
    resetSeconds: 60,
    retryAfterSeconds: 0,
    signalEpoch: '0',
    generation: 'g1',
    quarantined: false,
  });
  assert.deepEqual(decisionFromScriptReply([0, 0, 1_001, 1_001, '7', 'g1', 1], 5), {
    allowed: false,
    limit: 5,
    remaining: 0,
    resetSeconds: 2,
    retryAfterSeconds: 2,
    signalEpoch: '7',
    generation: 'g1',
    quarantined: true,
  });
  // The oldest leaves this very millisecond: still "wait 1 s", never Retry-After: 0.
  assert.equal(decisionFromScriptReply([0, 0, 0, 0, '0', 'g1', 0], 5).retryAfterSeconds, 1);
  assert.equal(decisionFromScriptReply([0, -2, 5, 5, '0', 'g1', 0], 3).remaining, 0);
  for (const bad of [
    null,
    'OK',
    [1, 2, 3],
    [1, 1, 1, 1, '0'],
    [1, 'x', 1, 1, '0', 'g', 0],
    [1, 1, 1, 1, 5, 'g', 0],
    [1, 1, 1.5, 1, '0', 'g', 0],
    [1, 1, 1, 1, '0', 7, 0],
  ]) {
    assert.throws(() => decisionFromScriptReply(bad, 5), LimiterUnavailableError, JSON.stringify(bad));
  }
});

describe('RedisLimitStore on a real Redis', { skip: probe.available ? false : probe.skip }, () => {
  const prefix = `${uniqueName('limits')}:`;
  let redis: Redis;
  let store: RedisLimitStore;

  before(async () => {
    redis = createRedisClient(REDIS_URL, CLIENT_OPTIONS);
    assert.ok(await waitForRedisReady(redis, READY_TIMEOUT_MS), 'Redis did not become ready');
    store = new RedisLimitStore({ redis, keyPrefix: prefix, commandTimeoutMs: 1_000 });
  });

  after(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  test('N accepted with headers counting down, the N+1th refused with Retry-After', async () => {
    for (let i = 1; i <= 5; i += 1) {
      const { generation, entry, ...decision } = await store.hit('login|ip:1.2.3.4', 5, 60_000);
      assert.match(generation ?? '', /^[0-9]+$/);
      assert.match(entry ?? '', /^[\w-]+:[0-9a-z]+$/);
      assert.deepEqual(decision, {
        allowed: true,
        limit: 5,
        remaining: 5 - i,
        resetSeconds: 60,
        retryAfterSeconds: 0,
        signalEpoch: '0',
        quarantined: false,
      });
    }
    const { generation: _, ...refused } = await store.hit('login|ip:1.2.3.4', 5, 60_000);
    assert.deepEqual(refused, {
      allowed: false,
      limit: 5,
      remaining: 0,
      resetSeconds: 60,
      retryAfterSeconds: 60,
      signalEpoch: '0',
      quarantined: false,
    });
    assert.equal(
      (await store.hit('login|ip:5.6.7.8', 5, 60_000)).allowed,
      true,
      'another bucket is independent',
    );
    // The set holds only accepted requests and expires with the window.
    assert.equal(await redis.zcard(`${prefix}rl:login|ip:1.2.3.4`), 5);
    const ttlMs = await redis.pttl(`${prefix}rl:login|ip:1.2.3.4`);
    assert.ok(ttlMs > 59_000 && ttlMs <= 60_001, `ttl ${ttlMs}`);
  });

  test('the signal epoch is read in the same round trip', async () => {
    assert.equal((await store.hit('epoch', 100, 60_000)).signalEpoch, '0');
    await redis.set(store.signalEpochKey, '41');
    await redis.incr(store.signalEpochKey);
    assert.equal((await store.hit('epoch', 100, 60_000)).signalEpoch, '42');
    assert.equal(store.signalEpochKey, `${prefix}signal-epoch`);
  });

  test('the window slides in real time (1.5 s window)', async () => {
    const windowMs = 1_500;
    assert.equal((await store.hit('slide', 2, windowMs)).allowed, true); // A at ~0 ms
    await sleep(700);
    assert.equal((await store.hit('slide', 2, windowMs)).allowed, true); // B at ~700 ms
    const refused = await store.hit('slide', 2, windowMs);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 1, 'A leaves ~800 ms from now, rounded up to 1 s');
    await sleep(850); // A has left; B has not
    assert.equal((await store.hit('slide', 2, windowMs)).allowed, true);
    const again = await store.hit('slide', 2, windowMs);
    assert.equal(again.allowed, false, 'B is still counted: the window slid, it did not reset');
  });

  test('200 concurrent checks on one bucket with limit 37: exactly 37 accepted', async () => {
    const decisions = await Promise.all(Array.from({ length: 200 }, () => store.hit('burst', 37, 60_000)));
    assert.equal(decisions.filter((d) => d.allowed).length, 37);
    assertEachRemainingOnce(decisions, 37);
    assert.equal(await redis.zcard(`${prefix}rl:burst`), 37);
  });

  test('release gives back exactly the slot its hit took, also across stores', async () => {
    const other = new RedisLimitStore({ redis, keyPrefix: prefix, commandTimeoutMs: 1_000 });
    const decisions = await Promise.all(
      Array.from({ length: 5 }, (_, i) => (i % 2 ? other : store).hit('rel', 5, 60_000)),
    );
    const entries = decisions.map((d) => d.entry);
    assert.equal(new Set(entries).size, 5, 'every accepted hit names its own entry');
    assert.equal((await store.hit('rel', 5, 60_000)).entry, undefined, 'a refused hit names none');
    await other.release('rel', entries[2]!);
    assert.equal(await redis.zcard(`${prefix}rl:rel`), 4);
    assert.equal(await redis.zscore(`${prefix}rl:rel`, entries[2]!), null);
    await store.release('rel', entries[2]!);
    assert.equal(await redis.zcard(`${prefix}rl:rel`), 4, 'a second release of one entry frees nothing more');
    assert.equal((await store.hit('rel', 5, 60_000)).allowed, true);
  });

  test('two instances (two clients, two stores) sharing a bucket never exceed N combined', async () => {
    const second = createRedisClient(REDIS_URL, CLIENT_OPTIONS);
    try {
      assert.ok(await waitForRedisReady(second, READY_TIMEOUT_MS));
      const other = new RedisLimitStore({ redis: second, keyPrefix: prefix, commandTimeoutMs: 1_000 });
      const hits = Array.from({ length: 150 }, (_, i) =>
        (i % 2 === 0 ? store : other).hit('shared', 50, 60_000),
      );
      const decisions = await Promise.all(hits);
      assert.equal(decisions.filter((d) => d.allowed).length, 50);
      assertEachRemainingOnce(decisions, 50);
      assert.equal((await other.hit('shared', 50, 60_000)).allowed, false);
    } finally {
      second.disconnect();
    }
  });

  test('an unreachable Redis: every check throws LimiterUnavailableError quickly, none is allowed', async () => {
    const dead = createRedisClient('redis://127.0.0.1:1', CLIENT_OPTIONS);
    try {
      const deadStore = new RedisLimitStore({ redis: dead, keyPrefix: prefix, commandTimeoutMs: 1_000 });
      for (let i = 0; i < 3; i += 1) {
        const startMs = performance.now();
        await assert.rejects(deadStore.hit('dead', 5, 60_000), LimiterUnavailableError);
        assert.ok(performance.now() - startMs < 2_000, 'failed fast');
        await sleep(100);
      }
      assert.equal(redisStatus(dead), 'down');
    } finally {
      dead.disconnect();
    }
    assert.equal(redisStatus(redis), 'up');
  });
});

/** Atomicity made visible: each accepted check saw a distinct count, remaining limit-1 down to 0. */
function assertEachRemainingOnce(decisions: LimitDecision[], limit: number): void {
  const remaining = decisions
    .filter((d) => d.allowed)
    .map((d) => d.remaining)
    .sort((a, b) => a - b);
  assert.deepEqual(
    remaining,
    Array.from({ length: limit }, (_, i) => i),
  );
  for (const refused of decisions.filter((d) => !d.allowed)) {
    assert.equal(refused.remaining, 0);
    assert.ok(refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60);
  }
}

async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

// A throwaway redis-server of our own, so outages can be staged without touching the machine's Redis.

describe('RedisLimitStore through outages of a throwaway redis-server', {
  skip: hasRedisServerBinary ? false : 'redis-server binary not installed; skipping outage tests',
}, () => {
  let port: number;
  let server: ChildProcess | undefined;
  let client: Redis;
  let store: RedisLimitStore;

  before(async () => {
    port = await freePort();
    server = await startRedisServer(port);
    client = createRedisClient(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 500, commandTimeoutMs: 300 });
    assert.ok(await waitForRedisReady(client, READY_TIMEOUT_MS));
    store = new RedisLimitStore({ redis: client, keyPrefix: 'outage:', commandTimeoutMs: 300 });
  });

  after(() => {
    client.disconnect();
    server?.kill('SIGKILL');
  });

  test('a restart: checks fail closed while it is down, recover by themselves, and no burst follows', async () => {
    // A short window keeps the quarantine (one window) short enough to wait out in a test.
    const windowMs = 2_000;
    for (let i = 0; i < 4; i += 1) assert.equal((await store.hit('b', 4, windowMs)).allowed, true);
    assert.equal((await store.hit('b', 4, windowMs)).allowed, false);

    await stopRedisServer(server);
    server = undefined;
    for (let i = 0; i < 5; i += 1) {
      const startMs = performance.now();
      await assert.rejects(store.hit('b', 4, windowMs), LimiterUnavailableError);
      assert.ok(performance.now() - startMs < 2_000);
      await sleep(50);
    }
    assert.equal(redisStatus(client), 'down');

    server = await startRedisServer(port);
    // Reconnect attempts are at most 1 s apart, so the client is back well within this bound.
    assert.ok(await waitForRedisReady(client, 3_000), 'the client reconnected by itself');
    assert.equal(redisStatus(client), 'up');
    // This Redis keeps nothing on disk: the restart forgot the window. The store notices (the generation
    // changed) and refuses every check for one window instead of admitting a second burst.
    const quarantined = await store.hit('b', 4, windowMs);
    assert.equal(quarantined.allowed, false);
    assert.equal(quarantined.quarantined, true);
    assert.ok(quarantined.retryAfterSeconds >= 1 && quarantined.retryAfterSeconds <= 2);
    const otherStore = new RedisLimitStore({ redis: client, keyPrefix: 'outage:', commandTimeoutMs: 300 });
    assert.equal(
      (await otherStore.hit('fresh', 4, windowMs)).quarantined,
      true,
      'every instance is held back',
    );
    await sleep(quarantined.retryAfterSeconds * 1000 + 50);
    // After the quarantine the limit holds as before (and the script was reloaded: EVALSHA → EVAL).
    for (let i = 0; i < 4; i += 1) assert.equal((await store.hit('b', 4, windowMs)).allowed, true);
    assert.equal((await store.hit('b', 4, windowMs)).allowed, false);
  });

  test('a Redis that stops answering: checks time out as unavailable, then recover', async () => {
    assert.ok(server?.pid !== undefined);
    process.kill(server.pid, 'SIGSTOP');
    try {
      const startMs = performance.now();
      await assert.rejects(store.hit('paused', 3, 60_000), LimiterUnavailableError);
      const elapsedMs = performance.now() - startMs;
      assert.ok(elapsedMs >= 250 && elapsedMs < 1_000, `timed out after ${elapsedMs} ms`);
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
    assert.ok(await waitForRedisReady(client, 3_000));
    // The timed-out check may have run once Redis resumed (it counts against its own bucket: safe side).
    let accepted = 0;
    for (let i = 0; i < 5; i += 1) if ((await store.hit('paused', 3, 60_000)).allowed) accepted += 1;
    assert.ok(accepted === 2 || accepted === 3, `accepted ${accepted}`);
  });
});
