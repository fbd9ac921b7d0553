// Statements per external payment on PostgreSQL, and which statements they are. Starts the service in-process
// the way the tests do (a schema of its own, Redis under a prefix of its own), makes 32 funded agent wallets
// with a key each, fires PAYMENTS external payments PARALLEL at a time, and prints the statements per payment
// (BEGIN/COMMIT included, amortised over the writer's batches), payments per batch, the service's CPU and Redis
// commands per payment, and each distinct SQL text per payment. Counts are exact where req/s is noisy (this
// machine drifts by ±25 %): run it at two commits and compare. Needs PostgreSQL and Redis as the tests do.
//   node packages/server/bench/statements-probe.ts [payments=3000] [parallel=50]
// Through inject by default: every request is in the writer's queue before a batch starts (batches of PARALLEL).
// PROBE_HTTP=1: served on loopback with the real clock and background duties, the payments sent by autocannon
// from a child process as the benchmark does, so batches are as large as the load makes them (about half of
// PARALLEL: one batch commits while the other half of the connections queue). PROBE_FULL=1 prints whole texts;
// PROBE_IDLE_S=n then counts the background duties' statements for n idle seconds; PROBE_PROFILE=file writes a
// CPU profile of the payments alone.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type ManualClock, systemClock } from '../src/clock.ts';
import { createKey, fund, OUTSIDE_ADDRESS } from '../test/support/agent.helpers.ts';
import { startHarness } from '../test/support/harness.ts';
import { fundedUser } from '../test/support/http.ts';
import { POSTGRES_URL, REDIS_URL, uniqueName } from '../test/support/services.ts';

const PAYMENTS = Number(process.argv[2] ?? 3000);
const PARALLEL = Number(process.argv[3] ?? 50);
const WALLETS = 32;
/** Distinct texts printed: the rest are summed into one line. */
const TEXTS_SHOWN = 60;
/** Characters of a text printed unless PROBE_FULL=1: enough to tell the statements apart. */
const TEXT_SHOWN_CHARS = 400;

/** One text per statement shape: parameters and repeated value lists (batch-sized IN lists, rows) folded. */
function shapeOf(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\$\d+(::\w+)?/g, '?')
    .replace(/\?(, \?)+/g, '?…')
    .replace(/\((\?…|\?)\)(, \((\?…|\?)\))+/g, '(?…)…')
    .trim();
}

if (process.argv[2] === 'client') {
  await client(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]), process.argv.slice(6));
  process.exit(0);
}
const HTTP = process.env.PROBE_HTTP === '1';

const histogram = new Map<string, number>();
let counting = false;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0] as string | { text: string };
    const text = typeof first === 'string' ? first : first.text;
    const shape = shapeOf(text);
    histogram.set(shape, (histogram.get(shape) ?? 0) + 1);
  }
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

// Redis commands per payment (a round trip each, not counted as statements).
const redisCommands = new Map<string, number>();
const originalSend = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: unknown[]) {
  const command = args[0] as { name: string };
  if (counting) redisCommands.set(command.name, (redisCommands.get(command.name) ?? 0) + 1);
  return (originalSend as (...a: unknown[]) => unknown).apply(this, args);
} as typeof Redis.prototype.sendCommand;

const prefix = `${uniqueName('probe')}:`;
const h = await startHarness('postgres', 'stmt_probe', {
  env: { REDIS_URL, REDIS_PREFIX: prefix, DB_POOL_MAX: '20' },
  // The harness types its clock as a ManualClock; served, the probe runs on real time like a deployment.
  ...(HTTP ? { clock: systemClock as unknown as ManualClock, backgroundIntervalMs: 5_000 } : {}),
});
try {
  const { user } = await fundedUser(h.app, '100000000');
  const keys: string[] = [];
  for (let i = 0; i < WALLETS; i += 1) {
    const made = await user.api.post('/api/v1/agent-wallets', { label: `probe ${i}` });
    if (made.status !== 201) throw new Error(`agent wallet: ${made.raw}`);
    await fund(user, made.body.data.id, '100000');
    keys.push(await createKey(user, made.body.data.id));
  }
  // Straight through inject: the tests' call() also checks each answer against the OpenAPI document, whose
  // cost grows with the routes and would be counted as the service's.
  const body = JSON.stringify({ params: { toAddress: OUTSIDE_ADDRESS, amount: '0.01' } });
  const pay = async (n: number) => {
    const reply = await h.app.inject({
      method: 'POST',
      url: '/mcp/v1/tools/send_payment',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[n % WALLETS]}` },
      payload: body,
    });
    return { status: reply.statusCode };
  };
  // Warm-up: key caches, prepared statements, each wallet's first payment.
  for (let i = 0; i < WALLETS * 2; i += 1) await pay(i);

  const batches: number[] = [];
  const metrics = h.services.metrics as { ledgerBatch: (size: number) => void };
  const observe = metrics.ledgerBatch.bind(metrics);
  metrics.ledgerBatch = (size) => {
    if (counting) batches.push(size);
    observe(size);
  };
  const statementsBefore = h.services.store.statementCount();
  counting = true;
  // PROBE_PROFILE=file.cpuprofile: a CPU profile of the payments alone (set-up and warm-up left out).
  const profileTo = process.env.PROBE_PROFILE;
  const profiler = profileTo === undefined ? null : new Session();
  if (profiler !== null) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
  }
  const startedMs = performance.now();
  const cpuBefore = process.cpuUsage();
  let next = 0;
  const statuses = new Map<number, number>();
  const worker = async () => {
    while (next < PAYMENTS) {
      const reply = await pay(next++);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    }
  };
  if (HTTP) {
    const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const answered = await spawned(['client', base, String(PAYMENTS), String(PARALLEL), ...keys]);
    for (const [status, n] of JSON.parse(answered) as [number, number][]) statuses.set(status, n);
  } else await Promise.all(Array.from({ length: PARALLEL }, worker));
  const elapsedMs = performance.now() - startedMs;
  const cpu = process.cpuUsage(cpuBefore);
  if (profiler !== null) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(profileTo!, JSON.stringify(profile));
    profiler.disconnect();
  }
  counting = false;
  const statements = h.services.store.statementCount() - statementsBefore;

  const batchedPayments = batches.reduce((a, b) => a + b, 0);
  console.log(`payments ${PAYMENTS}, ${PARALLEL} in flight, statuses ${JSON.stringify([...statuses])}`);
  console.log(`statements per payment ${(statements / PAYMENTS).toFixed(4)} (${statements} in all)`);
  console.log(
    `batches ${batches.length}, operations per batch ${(batchedPayments / batches.length).toFixed(2)}, ` +
      `${(PAYMENTS / (elapsedMs / 1000)).toFixed(0)} payments/s (${HTTP ? 'HTTP' : 'inject'}, noisy)`,
  );
  console.log(
    `service CPU per payment ${((cpu.user + cpu.system) / PAYMENTS).toFixed(0)} µs${HTTP ? '' : ' (client included)'}; ` +
      `Redis commands per payment ${JSON.stringify([...redisCommands].map(([n, c]) => [n, +(c / PAYMENTS).toFixed(3)]))}`,
  );
  const rows = [...histogram].sort((a, b) => b[1] - a[1]);
  for (const [text, count] of rows.slice(0, TEXTS_SHOWN)) {
    console.log(
      `${(count / PAYMENTS).toFixed(4)}  ${count}\t${process.env.PROBE_FULL === '1' ? text : text.slice(0, TEXT_SHOWN_CHARS)}`,
    );
  }
  const rest = rows.slice(TEXTS_SHOWN).reduce((a, [, c]) => a + c, 0);
  if (rest > 0)
    console.log(`${(rest / PAYMENTS).toFixed(4)}  ${rest}\t(${rows.length - TEXTS_SHOWN} more texts)`);
  const idleSeconds = Number(process.env.PROBE_IDLE_S ?? 0);
  if (idleSeconds > 0) await idle(idleSeconds);
} finally {
  await h.close();
  await dropOwnSchema(h.postgresSchema);
  await dropOwnKeys(prefix);
}

/** Statements while no request comes: the background duties' share of a benchmark's count. */
async function idle(seconds: number): Promise<void> {
  histogram.clear();
  const before = h.services.store.statementCount();
  counting = true;
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  counting = false;
  const count = h.services.store.statementCount() - before;
  console.log(`idle ${seconds} s: ${count} statements (${(count / seconds).toFixed(2)}/s)`);
  for (const [text, n] of [...histogram].sort((a, b) => b[1] - a[1]))
    console.log(`  ${n}\t${text.slice(0, TEXT_SHOWN_CHARS)}`);
}

async function dropOwnSchema(schema: string | undefined): Promise<void> {
  if (schema === undefined) return;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}

async function dropOwnKeys(keyPrefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [nextCursor, found] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
    if (found.length > 0) await redis.del(...found);
    cursor = nextCursor;
  } while (cursor !== '0');
  redis.disconnect();
}

/** The load generator, in its own process so that its CPU is not the service's. */
function spawned(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [import.meta.filename, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`client exited ${code}`))));
  });
}

async function client(base: string, amount: number, connections: number, keys: string[]): Promise<void> {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections,
    amount,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          path: '/mcp/v1/tools/send_payment',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[n++ % keys.length]}` },
          body: JSON.stringify({ params: { toAddress: OUTSIDE_ADDRESS, amount: '0.01' } }),
        }),
      },
    ],
  });
  // autocannon counts answers by class only: 0 stands for every answer that was not 2xx.
  const statuses: [number, number][] = [
    [200, result['2xx']],
    [0, result.non2xx],
  ];
  process.stdout.write(JSON.stringify(statuses));
}
