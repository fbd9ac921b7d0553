// A rolling restart under load (issue 31): three instances on PostgreSQL + Redis behind Debian's HAProxy (started
// by the test on loopback ports, health-checking /health/ready), a steady mix of payments, fund/withdraw and reads
// through it from the SDK with its default retries, while each instance in turn is stopped with SIGTERM (it
// drains: ready says 503, requests are still served) and started again — then the same with one instance
// SIGKILLed mid-load. The clients see no failed call; every acknowledged payment is in the ledger exactly once;
// verify-ledger is clean.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AgentWalletClient, ManagementClient } from '../../sdk/src/index.ts';
import { freePort, type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { POSTGRES_URL, probeService, REDIS_URL, uniqueName } from './support/services.ts';

const HAPROXY = '/usr/sbin/haproxy';
const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const OUTSIDE = `0x${'ab'.repeat(20)}`;
const LIMITS = JSON.stringify({
  default: 1_000_000,
  signup: 1_000_000,
  login: 1_000_000,
  wallet: 1_000_000,
  agent_wallets: 1_000_000,
  send_payment: 1_000_000,
  check_balance: 1_000_000,
  health: 1_000_000,
});
const INSTANCES = 3;

const missing = existsSync(HAPROXY) ? null : `${HAPROXY} is not installed; skipping (CI=true requires it)`;
if (missing !== null && process.env.CI === 'true') throw new Error(`CI=true requires haproxy at ${HAPROXY}`);
const pgProbe = await probeService('PostgreSQL', POSTGRES_URL);
const redisProbe = await probeService('Redis', REDIS_URL);
const skip = missing ?? (!pgProbe.available ? pgProbe.skip : !redisProbe.available ? redisProbe.skip : false);

function haproxyConfig(port: number, backends: number[]): string {
  return [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  retries 3',
    '  option redispatch',
    // A request that never reached a server (refused connection) goes to another one.
    '  retry-on conn-failure empty-response',
    'frontend wallet',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk',
    // HTTP/1.1 with a Host the service accepts (bound to loopback, it refuses a Host that does not name it).
    '  http-check send meth GET uri /api/v1/health/ready ver HTTP/1.1 hdr Host 127.0.0.1',
    '  http-check expect status 200',
    '  default-server inter 200ms fall 1 rise 2',
    ...backends.map((p, i) => `  server i${i} 127.0.0.1:${p} check`),
  ].join('\n');
}

describe('rolling restart behind HAProxy', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-wallet-rolling-'));
  const env = {
    DATABASE_URL: POSTGRES_URL,
    DATABASE_SCHEMA: uniqueName('rolling'),
    REDIS_URL,
    REDIS_PREFIX: `${uniqueName('rolling')}:`,
    DATA_DIR: join(dir, 'data'),
    RATE_LIMITS: LIMITS,
    DB_POOL_MAX: '5',
    SHUTDOWN_DRAIN_MS: '1500',
  };
  const ports: number[] = [];
  const instances: ServiceProcess[] = [];
  let haproxy: ChildProcess | undefined;
  let url: string;

  before(async () => {
    for (let i = 0; i < INSTANCES; i += 1) ports.push(await freePort());
    // One at a time first: the first instance migrates the schema and writes DATA_DIR's secrets.
    for (const port of ports) instances.push(await startServiceProcess(env, CLI, port));
    const front = await freePort();
    writeFileSync(join(dir, 'haproxy.cfg'), `${haproxyConfig(front, ports)}\n`);
    haproxy = spawn(HAPROXY, ['-f', join(dir, 'haproxy.cfg'), '-db'], { stdio: 'ignore' });
    url = `http://127.0.0.1:${front}`;
    const deadline = Date.now() + 10_000;
    while (
      !(await fetch(`${url}/api/v1/health/ready`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('haproxy did not come up');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    haproxy?.kill('SIGTERM');
    for (const instance of instances) await instance.kill().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  async function customer() {
    const owner = new ManagementClient({ baseUrl: url });
    await owner.signup({ email: `rolling-${Date.now()}@example.test`, password: 'a long enough password' });
    await owner.sandboxDeposit('100000');
    const wallet = await owner.agentWallets.create({ label: 'load' });
    await owner.agentWallets.fund(wallet.id, { amount: '50000' });
    const key = await owner.keys.create(wallet.id, { label: 'load' });
    return { owner, walletId: wallet.id, agent: new AgentWalletClient({ baseUrl: url, apiKey: key.key }) };
  }

  /** A steady mix through HAProxy until `stop()`: every call's outcome is kept. */
  function load(who: Awaited<ReturnType<typeof customer>>) {
    let running = true;
    const paid: string[] = [];
    const failures: string[] = [];
    let calls = 0;
    const worker = async (kind: number) => {
      while (running) {
        calls += 1;
        try {
          if (kind === 0)
            paid.push((await who.agent.sendPayment({ toAddress: OUTSIDE, amount: '0.01' })).txId);
          else if (kind === 1) await who.agent.checkBalance();
          else {
            await who.owner.agentWallets.fund(who.walletId, { amount: '1' });
            await who.owner.agentWallets.withdraw(who.walletId, { amount: '1' });
          }
        } catch (error) {
          failures.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
        }
      }
    };
    const workers = [0, 0, 0, 1, 1, 2].map((kind) => worker(kind));
    return {
      paid,
      failures,
      calls: () => calls,
      stop: async () => {
        running = false;
        await Promise.all(workers);
      },
    };
  }

  async function assertLedger(who: Awaited<ReturnType<typeof customer>>, paid: string[]) {
    const seen = new Map<string, number>();
    for (let page = 1; ; page += 1) {
      const history = await who.agent.getTxHistory({ limit: 100, page });
      for (const tx of history.transactions) seen.set(tx.id, (seen.get(tx.id) ?? 0) + 1);
      if (history.transactions.length < 100) break;
    }
    for (const id of paid) assert.equal(seen.get(id), 1, `acknowledged payment ${id} is in the ledger once`);
    const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  }

  test('each instance stopped (SIGTERM) and started again in turn: no failed call, nothing lost', {
    timeout: 120_000,
  }, async () => {
    const who = await customer();
    const running = load(who);
    for (let i = 0; i < INSTANCES; i += 1) {
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(await instances[i]!.stop(), 0, instances[i]!.output());
      instances[i] = await startServiceProcess(env, CLI, ports[i]);
    }
    await new Promise((r) => setTimeout(r, 700));
    await running.stop();
    assert.deepEqual(running.failures, [], `${running.failures.length} of ${running.calls()} calls failed`);
    assert.ok(running.paid.length > 50, `a steady load ran (${running.paid.length} payments)`);
    await assertLedger(who, running.paid);
  });

  test('one instance SIGKILLed mid-load: the SDK’s retries absorb it, nothing lost or doubled', {
    timeout: 120_000,
  }, async () => {
    const who = await customer();
    const running = load(who);
    await new Promise((r) => setTimeout(r, 700));
    await instances[1]!.kill();
    await new Promise((r) => setTimeout(r, 1_000));
    instances[1] = await startServiceProcess(env, CLI, ports[1]);
    await new Promise((r) => setTimeout(r, 700));
    await running.stop();
    assert.deepEqual(running.failures, [], `${running.failures.length} of ${running.calls()} calls failed`);
    await assertLedger(who, running.paid);
  });
});
