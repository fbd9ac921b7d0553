// The mixed workload of issue 11 across two service processes on one PostgreSQL schema: 30 workers split
// between the instances pay between three agent wallets in both directions (half internal, half external) while
// the owner funds and withdraws. Each instance batches its own writes; the batches of the two lock their
// wallets in one ordered statement each, so they cannot deadlock. Zero 5xx; the money adds up; verify-ledger
// passes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decimalToMicros as micros } from '../src/domain/money.ts';
import { OUTSIDE_ADDRESS } from './support/agent.helpers.ts';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request } from './support/service-http.ts';
import { POSTGRES_URL, probeService, uniqueName } from './support/services.ts';

const WORKERS = Number(process.env.MIXED_WORKERS ?? 30);
const OPS_PER_WORKER = Number(process.env.MIXED_OPS ?? 12);
const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const pg = await probeService('PostgreSQL', POSTGRES_URL);

describe('mixed workload on two instances (postgres)', { skip: pg.available ? false : pg.skip }, () => {
  const env = {
    DATABASE_URL: POSTGRES_URL,
    DATABASE_SCHEMA: uniqueName('mixed_two'),
    JWT_SECRET: 'a shared secret of at least thirty-two characters!',
    RATE_LIMITS: GENEROUS_RATE_LIMITS,
    DB_POOL_MAX: '8',
  };
  let instances: ServiceProcess[] = [];
  before(async () => {
    instances = [await startServiceProcess(env), await startServiceProcess(env)];
  });
  after(async () => {
    for (const instance of instances) await instance.stop();
  });

  test(`${WORKERS} workers × ${OPS_PER_WORKER} over two instances: no 5xx, the money adds up`, async () => {
    const [a, b] = instances as [ServiceProcess, ServiceProcess];
    const signup = await request(a.url, 'POST', '/api/v1/auth/signup', undefined, {
      email: 'mixed-two@example.test',
      password: 'a long enough password',
    });
    const token = signup.body.data.token;
    await request(a.url, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '100000' });
    const wallets: Array<{ id: string; address: string; key: string }> = [];
    for (let i = 0; i < 3; i += 1) {
      const made = (await request(b.url, 'POST', '/api/v1/agent-wallets', token, { label: `w${i}` })).body
        .data;
      await request(a.url, 'POST', `/api/v1/agent-wallets/${made.id}/fund`, token, { amount: '1000' });
      const key = (
        await request(b.url, 'POST', `/api/v1/agent-wallets/${made.id}/keys`, token, { label: 'k' })
      ).body.data.key;
      wallets.push({ id: made.id, address: made.address, key });
    }
    const statuses = new Map<number, number>();
    let externalMicros = 0n;
    const worker = async (n: number) => {
      const base = (n % 2 === 0 ? a : b).url;
      for (let i = 0; i < OPS_PER_WORKER; i += 1) {
        const from = wallets[(n + i) % 3]!;
        const to = wallets[(n + i + 1 + (n % 2)) % 3]!; // both directions between each pair
        const kind = (n + i) % 4;
        const reply =
          kind === 0
            ? await request(base, 'POST', `/api/v1/agent-wallets/${from.id}/fund`, token, { amount: '0.5' })
            : kind === 1
              ? await request(base, 'POST', `/api/v1/agent-wallets/${from.id}/withdraw`, token, {
                  amount: '0.25',
                })
              : await request(base, 'POST', '/mcp/v1/tools/send_payment', from.key, {
                  params: { toAddress: kind === 2 ? to.address : OUTSIDE_ADDRESS, amount: '0.1' },
                });
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        assert.ok(reply.status < 500, `${reply.status}: ${JSON.stringify(reply.body)}`);
        if (kind === 3 && reply.body.data?.status === 'completed') externalMicros += 100_000n;
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n)));
    assert.equal(statuses.get(200) ?? 0, WORKERS * OPS_PER_WORKER, JSON.stringify([...statuses]));
    const master = await request(a.url, 'GET', '/api/v1/wallet', token);
    let heldMicros = 0n;
    for (const wallet of wallets) {
      const view = (await request(b.url, 'GET', `/api/v1/agent-wallets/${wallet.id}`, token)).body.data;
      heldMicros += micros(view.balance) + micros(view.heldBalance);
    }
    assert.equal(micros(master.body.data.balance) + heldMicros + externalMicros, micros('100000'));
    const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  });
});
