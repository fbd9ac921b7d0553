// Redis outages under payment load, on a private redis-server this test starts, stops, hangs (SIGSTOP) and
// restarts (never the machine's shared Redis). The service process survives, answers 200 or a bounded 503
// (limited routes fail closed, never unlimited), reports `redis: "down"` meanwhile, recovers by itself, and at
// the end every payment key paid exactly once and the ledger verifies.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type PaymentLoad, startPaymentLoad } from './support/payment-load.ts';
import {
  freePort,
  hasRedisServerBinary,
  type ServiceProcess,
  startRedisServer,
  startServiceProcess,
  stopRedisServer,
} from './support/processes.ts';
import {
  assertOnly200or503,
  completedCount,
  fundedAgentKey,
  healthSays,
  request,
  waitFor,
} from './support/service-http.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
/** The limiter's Redis command timeout is 500 ms; allow a busy 2-core machine its slack. */
const ANSWER_BOUND_MS = 4_000;
const RECOVERY_MS = 20_000;
const QUARANTINE_MS = 60_000;

const skip =
  !hasRedisServerBinary && process.env.CI !== 'true'
    ? 'no redis-server binary: Redis outage tests skipped (CI=true requires it)'
    : false;

describe('Redis outages under load (private redis-server)', { skip }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-redis-outage-'));
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let service: ServiceProcess;
  let load: PaymentLoad;
  let key: string;

  before(async () => {
    redisPort = await freePort();
    redis = await startRedisServer(redisPort);
    service = await startServiceProcess({
      DATA_DIR: dataDir,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
    });
    key = await fundedAgentKey(service.url, 'redis-outage@example.test');
    load = startPaymentLoad(service.url, key, { workers: 4, label: 'redis-outage' });
  });

  after(async () => {
    await load?.stop();
    await service?.stop();
    if (redis?.pid !== undefined) process.kill(redis.pid, 'SIGCONT');
    await stopRedisServer(redis);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const phase = async (name: string, stage: () => Promise<void>, recoveryMs: number) => {
    const from = load.answers.length;
    await stage();
    const before = load.acknowledged.size;
    await waitFor(
      `payments succeed again after "${name}"`,
      async () => load.acknowledged.size > before + 5,
      recoveryMs,
    );
    assert.equal(
      service.child.exitCode,
      null,
      `the service process died during "${name}":\n${service.output()}`,
    );
    assertOnly200or503(load.answers.slice(from), name, ANSWER_BOUND_MS);
  };

  test('a hung Redis (SIGSTOP): answers within the bound, then recovery', async () => {
    await sleep(500);
    await phase(
      'hung',
      async () => {
        process.kill(redis?.pid ?? 0, 'SIGSTOP');
        try {
          await sleep(3_000);
          const health = await request(service.url, 'GET', '/api/v1/health');
          assert.equal(health.status, 200);
        } finally {
          process.kill(redis?.pid ?? 0, 'SIGCONT');
        }
        await waitFor('health says redis up', healthSays(service.url, 'redis', 'up'), RECOVERY_MS);
      },
      RECOVERY_MS,
    );
  });

  // A restarted Redis without persistence has lost every window: one window of quarantine follows (60 s).
  test('a stopped Redis: limited routes 503 (never unlimited), health says down, recovery by itself', async () => {
    await phase(
      'stopped',
      async () => {
        await stopRedisServer(redis);
        await waitFor('health says redis down', healthSays(service.url, 'redis', 'down'), 10_000);
        const during = load.answers.length;
        await sleep(1_500);
        assert.ok(
          load.answers.slice(during).every((a) => a.status === 503),
          'no payment passes the limiter while Redis is down',
        );
        redis = await startRedisServer(redisPort);
        await waitFor('health says redis up', healthSays(service.url, 'redis', 'up'), RECOVERY_MS);
        await waitFor(
          'the next limited request starts the quarantine',
          async () => {
            await request(service.url, 'GET', '/api/v1/wallet');
            const health = await request(service.url, 'GET', '/api/v1/health');
            return /Redis lost its rate-limit data/.test((health.body.data.reasons ?? []).join(' '));
          },
          RECOVERY_MS,
        );
      },
      QUARANTINE_MS + RECOVERY_MS,
    );
  });

  test('afterwards: every key paid exactly once and the ledger verifies', async () => {
    await load.stop();
    await load.settle(Date.now() + 60_000);
    assert.equal(load.acknowledged.size, load.keys.length, 'every key was eventually acknowledged');
    assert.equal(new Set(load.acknowledged.values()).size, load.keys.length, 'one transaction per key');
    assert.equal(await completedCount(service.url, key), load.keys.length + 1, 'completed = keys + funding');
    await service.stop();
    const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  });
});
