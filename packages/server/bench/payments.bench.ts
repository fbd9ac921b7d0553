// Payment throughput of the real service over loopback, next to a bare Fastify route measured in the same
// run, so the numbers read as a ratio rather than as absolute speed of this machine.
// Not a test: `node packages/server/bench/payments.bench.ts` (add DATABASE_URL=postgres://… for PostgreSQL).
// Scenarios: the bare route, check_balance, send_payment with group commit, send_payment without it
// (LEDGER_BATCH_MAX=1). Afterwards the ledger is verified and the payments are counted.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { BUCKET_NAMES } from '../src/limits/rules.ts';
import { freePort, type ServiceProcess, startServiceProcess } from '../test/support/processes.ts';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const BARE_SERVER = resolve(import.meta.dirname, 'bare-fastify.ts');
const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const OUTSIDE = `0x${'ab'.repeat(20)}`;
const LIMITS = JSON.stringify(Object.fromEntries(BUCKET_NAMES.map((name) => [name, 10_000_000])));

interface Row {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  requests: number;
}

async function measure(
  scenario: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<Row> {
  const result = await autocannon({
    url,
    method: init.method as 'POST',
    headers: init.headers,
    ...(init.body === undefined ? {} : { body: init.body }),
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
  });
  return {
    scenario,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}

async function post(base: string, path: string, token: string | undefined, body: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: bench reads arbitrary JSON
  return (await response.json()) as any;
}

async function prepareAgent(service: ServiceProcess): Promise<string> {
  const signup = await post(service.url, '/api/v1/auth/signup', undefined, {
    email: `bench${Date.now()}@example.test`,
    password: 'password123',
  });
  const token = signup.data.token;
  await post(service.url, '/api/v1/wallet/sandbox/deposit', token, { amount: '1000000000' });
  const wallet = await post(service.url, '/api/v1/agent-wallets', token, { label: 'bench' });
  await post(service.url, `/api/v1/agent-wallets/${wallet.data.id}/fund`, token, { amount: '1000000000' });
  const key = await post(service.url, `/api/v1/agent-wallets/${wallet.data.id}/keys`, token, {
    label: 'bench',
  });
  return key.data.key;
}

async function startBare(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BARE_SERVER], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i += 1) {
    if (
      await fetch(`${url}/bare`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

async function paymentScenario(label: string, env: Record<string, string>): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-bench-'));
  const service = await startServiceProcess({
    ...env,
    DATA_DIR: dataDir,
    RATE_LIMITS: LIMITS,
    LOG_LEVEL: 'warn',
  });
  try {
    const key = await prepareAgent(service);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const row = await measure(label, `${service.url}/mcp/v1/tools/send_payment`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ params: { toAddress: OUTSIDE, amount: '0.000001', memo: 'bench' } }),
    });
    const history = await post(service.url, '/mcp/v1/tools/get_tx_history', key, {
      params: { limit: 1, status: 'completed' },
    });
    // Every 200 was a payment: completed payments = accepted requests (+1 for the funding transfer).
    console.error(
      `${label}: ${history.data.total - 1} completed payments for ${row.requests - row.non2xx} 2xx answers`,
    );
    return row;
  } finally {
    await service.stop();
    if (env.DATABASE_URL === undefined) {
      const verify = spawn(process.execPath, [CLI, 'verify-ledger'], {
        env: { ...process.env, DATA_DIR: dataDir },
        stdio: 'inherit',
      });
      await new Promise((done) => verify.once('exit', done));
    }
  }
}

const rows: Row[] = [];
const bare = await startBare();
rows.push(
  await measure('bare Fastify route (POST, JSON)', `${bare.url}/bare`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"params":{}}',
  }),
);
const storeEnv: Record<string, string> =
  process.env.DATABASE_URL === undefined
    ? {}
    : { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: `bench_${Date.now()}` };
{
  const service = await startServiceProcess({ ...storeEnv, RATE_LIMITS: LIMITS, LOG_LEVEL: 'warn' });
  const key = await prepareAgent(service);
  rows.push(
    await measure('check_balance', `${service.url}/mcp/v1/tools/check_balance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: '{}',
    }),
  );
  await service.stop();
}
rows.push(await paymentScenario('send_payment, group commit', { ...storeEnv }));
if (process.env.DATABASE_URL === undefined)
  rows.push(await paymentScenario('send_payment, one commit each', { LEDGER_BATCH_MAX: '1' }));
bare.stop();

const baseline = rows[0]!.requestsPerSecond;
console.log(
  `\n${process.env.DATABASE_URL === undefined ? 'SQLite (embedded, WAL, synchronous=FULL)' : 'PostgreSQL'}; ${CONNECTIONS} connections, ${DURATION_SECONDS} s each\n`,
);
console.log('| scenario | req/s | vs bare | p50 ms | p99 ms | non-2xx |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const row of rows) {
  console.log(
    `| ${row.scenario} | ${row.requestsPerSecond} | ${(row.requestsPerSecond / baseline).toFixed(3)} | ${row.p50Ms} | ${row.p99Ms} | ${row.non2xx} |`,
  );
}
