// Graceful shutdown of the real process: SIGTERM while payments are in flight. Every request that got an
// answer got a complete one, every acknowledged payment is in the ledger, nothing is half-written, and the
// process exits 0 having closed the database.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { OUTSIDE_ADDRESS } from './support/agent.helpers.ts';
import { startServiceProcess } from './support/processes.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');

async function post(base: string, path: string, token: string | undefined, body: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  return { status: response.status, body: (await response.json()) as any };
}

test('SIGTERM finishes in-flight payments, loses none, and exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-shutdown-'));
  const service = await startServiceProcess({ DATA_DIR: dataDir, RATE_LIMITS: '{"send_payment":100000}' });
  const token = (
    await post(service.url, '/api/v1/auth/signup', undefined, {
      email: 'stop@example.test',
      password: 'a long enough password',
    })
  ).body.data.token;
  await post(service.url, '/api/v1/wallet/sandbox/deposit', token, { amount: '1000' });
  const walletId = (await post(service.url, '/api/v1/agent-wallets', token, { label: 'stop' })).body.data.id;
  await post(service.url, `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '1000' });
  const key = (await post(service.url, `/api/v1/agent-wallets/${walletId}/keys`, token, { label: 'stop' }))
    .body.data.key;

  const payments = Array.from({ length: 200 }, (_, i) =>
    post(service.url, '/mcp/v1/tools/send_payment', key, {
      params: { toAddress: OUTSIDE_ADDRESS, amount: '1', memo: `#${i}` },
    }).then(
      (reply) => reply,
      () => null, // refused connection: never acknowledged
    ),
  );
  await new Promise((r) => setTimeout(r, 20)); // let some be in flight
  const exited = service.stop();
  const replies = await Promise.all(payments);
  assert.equal(await exited, 0, service.output());

  const acknowledged = replies.filter((r) => r !== null && r.status === 200);
  assert.ok(
    replies.every((r) => r === null || r.status === 200 || r.status === 503),
    `only completed payments, refusals while closing, or no connection: ${replies.map((r) => r?.status).join(',')}`,
  );
  assert.ok(acknowledged.length > 0, 'some payments were in flight and finished');

  // The database was closed cleanly and holds exactly the acknowledged payments.
  const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  assert.equal(verify.status, 0, verify.stderr);
  const restarted = await startServiceProcess({ DATA_DIR: dataDir });
  try {
    const history = await post(restarted.url, '/mcp/v1/tools/get_tx_history', key, {
      params: { limit: 1, status: 'completed' },
    });
    assert.equal(
      history.body.data.total - 1,
      acknowledged.length,
      'completed payments = acknowledged ones (+1 funding)',
    );
  } finally {
    await restarted.stop();
  }
});

test('SIGTERM drains: ready answers 503 at once, requests are still served for SHUTDOWN_DRAIN_MS, then it exits', async () => {
  const service = await startServiceProcess({ SHUTDOWN_DRAIN_MS: '1500' });
  const get = (path: string) => fetch(`${service.url}${path}`).then((r) => r.status);
  assert.equal(await get('/api/v1/health/ready'), 200);
  assert.equal(await get('/api/v1/health/live'), 200);
  const startedMs = Date.now();
  const exited = service.stop();
  let ready = 200;
  for (let i = 0; i < 50 && ready === 200; i += 1) {
    ready = await get('/api/v1/health/ready');
    if (ready === 200) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(ready, 503, 'ready says 503 once SIGTERM arrived');
  assert.equal(await get('/api/v1/health/live'), 200, 'still alive');
  const signup = await post(service.url, '/api/v1/auth/signup', undefined, {
    email: 'draining@example.test',
    password: 'a long enough password',
  });
  assert.equal(signup.status, 201, 'a new request during the drain is served');
  assert.equal(await exited, 0, service.output());
  assert.ok(Date.now() - startedMs >= 1_400, 'it waited out the drain');
});

test('started plainly (`node agent-wallet.js serve`, as a process manager would), the service bounds its own heap in the same process', {
  skip: process.platform === 'linux' ? false : 'reads /proc',
}, async () => {
  const service = await startServiceProcess({});
  try {
    const pid = service.child.pid!;
    // The process the supervisor started is the one serving (runs again in place, never as a child): its
    // command line now carries the V8 bounds, and a SIGTERM to it drains it (the tests above).
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.includes('--max-old-space-size=512'), cmdline.join(' '));
    assert.ok(cmdline.includes('--max-semi-space-size=4'), cmdline.join(' '));
    // … and its environment the allocator's settings (glibc: large blocks given back when freed).
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes('MALLOC_ARENA_MAX=2'), 'MALLOC_ARENA_MAX');
    assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=131072'), 'MALLOC_MMAP_THRESHOLD_');
    assert.equal((await fetch(`${service.url}/api/v1/health/live`)).status, 200);
  } finally {
    assert.equal(await service.stop(), 0);
  }
});
