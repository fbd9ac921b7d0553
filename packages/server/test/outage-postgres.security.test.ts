// PostgreSQL outages under load, on a private cluster this test starts and stops itself (never the machine's
// shared PostgreSQL): backends terminated, the server stopped, hung (SIGSTOP) and crashed. Throughout, the
// service process survives, answers 200 or 503 within its bound (never 500, never a hang), says
// `database: "down"` on health meanwhile, and recovers by itself. At the end every payment key paid exactly
// once (retries with the same idempotency key pay nothing twice) and verify-ledger passes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type PaymentLoad, startBalanceReads, startPaymentLoad } from './support/payment-load.ts';
import {
  hasPostgresBinaries,
  type PrivatePostgres,
  startPrivatePostgres,
} from './support/private-postgres.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import {
  assertOnly200or503,
  completedCount,
  fundedAgentKey,
  healthSays,
  request,
  waitFor,
} from './support/service-http.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 1_000;
/** connect (or pool wait) + one statement + the client's 1 s margin, plus slack for a loaded 2-core machine. */
const ANSWER_BOUND_MS = CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 1_000 + 3_000;
const RECOVERY_MS = 20_000;

const skip =
  !hasPostgresBinaries && process.env.CI !== 'true'
    ? 'no PostgreSQL server binaries (initdb, pg_ctl): outage tests skipped (CI=true requires them)'
    : false;

describe('PostgreSQL outages under load (private cluster)', { skip }, () => {
  let cluster: PrivatePostgres;
  let service: ServiceProcess;
  let load: PaymentLoad;
  let reads: ReturnType<typeof startBalanceReads>;
  let key: string;

  before(async () => {
    cluster = await startPrivatePostgres();
    service = await startServiceProcess({
      DATABASE_URL: cluster.url,
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
      JWT_SECRET: 'outage-test-secret-of-at-least-32-characters',
    });
    key = await fundedAgentKey(service.url, 'outage@example.test');
    load = startPaymentLoad(service.url, key, { workers: 4, label: 'outage' });
    reads = startBalanceReads(service.url, key, { workers: 8 });
  });

  after(async () => {
    await load?.stop();
    await reads?.stop();
    await service?.stop();
    cluster?.destroy();
  });

  const phase = async (name: string, stage: () => Promise<void>) => {
    const from = load.answers.length;
    const readsFrom = reads.answers.length;
    await stage();
    assert.equal(
      service.child.exitCode,
      null,
      `the service process died during "${name}":\n${service.output()}`,
    );
    assertOnly200or503(load.answers.slice(from), name, ANSWER_BOUND_MS);
    assertOnly200or503(reads.answers.slice(readsFrom), `${name} (check_balance)`, ANSWER_BOUND_MS);
    assert.ok(reads.answers.length > readsFrom, `${name}: balance reads went on`);
  };

  test('terminated backends (a failover, an administrator): the process survives and keeps paying', async () => {
    await sleep(500);
    await phase('terminate backends', async () => {
      for (let i = 0; i < 3; i += 1) {
        await cluster.terminateBackends();
        await sleep(400);
      }
      const before = load.acknowledged.size;
      await waitFor('payments succeed again', async () => load.acknowledged.size > before + 5, RECOVERY_MS);
    });
  });

  test('a stopped database: 503 within the bound, health says down, recovery by itself', async () => {
    await phase('stopped', async () => {
      cluster.stop('fast');
      await waitFor('health says database down', healthSays(service.url, 'database', 'down'), 10_000);
      await sleep(1_500);
      cluster.start();
      await waitFor('health says database up', healthSays(service.url, 'database', 'up'), RECOVERY_MS);
      const before = load.acknowledged.size;
      await waitFor('payments succeed again', async () => load.acknowledged.size > before + 5, RECOVERY_MS);
    });
    assert.ok(
      load.answers.some((a) => a.status === 503),
      'the outage was seen as 503s',
    );
  });

  test('a hung database (SIGSTOP): answers still come within the bound, then it recovers', async () => {
    await phase('hung', async () => {
      cluster.freeze(true);
      try {
        const startedMs = Date.now();
        const health = await request(service.url, 'GET', '/api/v1/health');
        assert.ok(Date.now() - startedMs < ANSWER_BOUND_MS, 'health answered within the bound');
        assert.equal(health.body.data.database, 'down');
        assert.equal(health.body.data.status, 'degraded');
        await sleep(ANSWER_BOUND_MS);
      } finally {
        cluster.freeze(false);
      }
      const before = load.acknowledged.size;
      await waitFor('payments succeed again', async () => load.acknowledged.size > before + 5, RECOVERY_MS);
    });
  });

  test('a crashed database (immediate stop, then start): recovery by itself', async () => {
    await phase('crashed', async () => {
      cluster.stop('immediate');
      await sleep(1_000);
      cluster.start();
      const before = load.acknowledged.size;
      await waitFor('payments succeed again', async () => load.acknowledged.size > before + 5, RECOVERY_MS);
    });
  });

  test('afterwards: every key paid exactly once, retries pay nothing twice, the ledger verifies', async () => {
    await load.stop();
    await load.settle(Date.now() + 60_000);
    assert.equal(load.acknowledged.size, load.keys.length, 'every key was eventually acknowledged');
    const txIds = new Set(load.acknowledged.values());
    assert.equal(txIds.size, load.keys.length, 'one transaction per key');
    assert.equal(await completedCount(service.url, key), load.keys.length + 1, 'completed = keys + funding');
    const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
      env: { ...process.env, DATABASE_URL: cluster.url },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  });
});
