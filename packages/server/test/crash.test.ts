// Crashes under load, on SQLite and PostgreSQL: a load generator records every acknowledged payment while the
// service is SIGKILLed at random moments, several times. After each restart the ledger verifies; at the end
// every idempotency key was retried until acknowledged, and each paid exactly once (an acknowledged payment is
// never lost, a retry never pays twice), the acknowledged transaction ids are the ones the ledger holds.
// CRASH_ROUNDS sets how many kills (default 3); CI runs the default.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GENEROUS_RATE_LIMITS, storeTargets } from './support/harness.ts';
import { sendPayment, startPaymentLoad } from './support/payment-load.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { completedCount, fundedAgentKey } from './support/service-http.ts';
import { POSTGRES_URL, uniqueName } from './support/services.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const JWT_SECRET = 'crash-test-secret-of-at-least-32-characters!';

function verifyLedger(env: Record<string, string>): void {
  const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
}

for (const target of await storeTargets()) {
  describe(`SIGKILL under load (${target.name})`, { skip: target.skip }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-crash-'));
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      JWT_SECRET,
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
      ...(target.name === 'postgres'
        ? { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: uniqueName('crash'), DB_POOL_MAX: '10' }
        : {}),
    };
    let service: ServiceProcess | undefined;
    after(async () => {
      await service?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test(`${ROUNDS} kills at random moments: nothing acknowledged is lost, nothing paid twice`, async () => {
      service = await startServiceProcess(env);
      const key = await fundedAgentKey(service.url, 'crash@example.test');
      const keys: string[] = [];
      const acknowledged = new Map<string, string>();
      for (let round = 0; round < ROUNDS; round += 1) {
        const load = startPaymentLoad(service.url, key, { workers: 4, label: `crash-${round}` });
        await sleep(300 + Math.floor(Math.random() * 1_200));
        await service.kill();
        await load.stop();
        keys.push(...load.keys);
        for (const [k, txId] of load.acknowledged) acknowledged.set(k, txId);
        verifyLedger(env);
        service = await startServiceProcess(env);
      }
      assert.ok(acknowledged.size > 0, 'payments were acknowledged before the kills');
      // Every key, acknowledged or not, is retried with the same params: each must answer its one payment.
      const final = new Map<string, string>();
      for (const k of keys) {
        const answer = await sendPayment(service.url, key, k);
        assert.equal(answer.status, 200, `retry of ${k}: ${answer.status} ${answer.code ?? ''}`);
        final.set(k, answer.txId ?? '');
      }
      for (const [k, txId] of acknowledged) {
        assert.equal(final.get(k), txId, `the acknowledged payment ${k} is the one the ledger holds`);
      }
      assert.equal(new Set(final.values()).size, keys.length, 'one transaction per key');
      assert.equal(await completedCount(service.url, key), keys.length + 1, 'completed = keys + funding');
      await service.stop();
      service = undefined;
      verifyLedger(env);
    });
  });
}
