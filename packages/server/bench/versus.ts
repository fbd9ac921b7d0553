// `node bench/versus.ts <name>=<bin>[,ENV=value…] …`: one scenario against several builds of the service running side
// by side, in interleaved rounds (each round hammers every build once, the order rotated), so that every build
// meets the same drift of the machine's speed. For finding which change moved a ratio of `npm run bench:ab`: the
// A/B runs the whole benchmark per side (minutes a round); this runs one scenario (seconds a round).
// VERSUS_SCENARIO: check_balance (default) | external (send_payment to an outside address, 32 wallets) | internal.
// VERSUS_DATABASE_URL: PostgreSQL instead of SQLite (each build its own schema, dropped after; with Redis for the
// limits and the key cache at VERSUS_REDIS_URL when set, each build its own prefix), as the benchmark runs it.
// Each <bin> is a checkout's packages/server/bin/agent-wallet.js, started with `serve` as its own bench started it.
// VERSUS_COPIES=n runs n processes of each build (each round measures every process, the order rotated) and reports
// each build's median over all of them: one process of a build can run a scenario at 1.5× the CPU per request of
// another of the same build for a whole run (measured on a 2-core VM), which one copy a side cannot tell from a
// change.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { freePort } from '../test/support/processes.ts';
import { request } from '../test/support/service-http.ts';
import { hammer, type Measured, type Shot, workerLoad } from './load.ts';

const SECONDS = Number(process.env.VERSUS_SECONDS ?? 4);
const ROUNDS = Number(process.env.VERSUS_ROUNDS ?? 5);
const COPIES = Number(process.env.VERSUS_COPIES ?? 1);
const COPIES_MAX = 4;
const LOAD = { seconds: SECONDS, connections: 50 };
const WALLETS = 32;
const OUTSIDE = `0x${'ab'.repeat(20)}`;
const THIS_BIN = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const DATABASE_URL = process.env.VERSUS_DATABASE_URL;
const REDIS_URL = process.env.VERSUS_REDIS_URL;
const RUN_ID = Date.now().toString(36);
const POOL_MAX = '20';
const STOP_WAIT_MS = 10_000;
/** GET /metrics's token, for the statements each request costs (every build since the counter counts them). */
const METRICS_TOKEN = `versus-metrics-${RUN_ID}-token`;

/** The store of the `index`th build: SQLite in its data folder, or a PostgreSQL schema (and Redis prefix) of its own. */
function storeEnv(index: number): Record<string, string> {
  if (DATABASE_URL === undefined) return {};
  const schema = `versus_${RUN_ID}_${index}`;
  const redis: Record<string, string> =
    REDIS_URL === undefined ? {} : { REDIS_URL, REDIS_PREFIX: `${schema}:` };
  return { DATABASE_URL, DATABASE_SCHEMA: schema, DB_POOL_MAX: POOL_MAX, ...redis };
}

async function dropSchemas(count: number): Promise<void> {
  if (DATABASE_URL === undefined) return;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (let i = 0; i < count; i += 1)
      await client.query(`drop schema if exists versus_${RUN_ID}_${i} cascade`);
  } finally {
    await client.end();
  }
}

interface Fixture {
  token: string;
  walletIds: string[];
  keys: string[];
  addresses: string[];
  cappedKey: string;
}

interface Build {
  /** The process's name: the build's, with `#<copy>` after the first copy. */
  name: string;
  /** The build's name: what the table reports, over every copy. */
  group: string;
  bin: string;
  env: Record<string, string>;
  child?: ChildProcess;
  url?: string;
  fixture?: Fixture;
  /** Per scenario: each round's req/s and the service's CPU time per request (µs, user + system, /proc). */
  rates: Map<string, number[]>;
  cpuMicros: Map<string, number[]>;
  /** Requests answered in all measured rounds (a CPU profile of the process divides by it). */
  requests: number;
  /** Per scenario: each round's statements sent to the database per request (BEGIN and COMMIT included). */
  statements: Map<string, number[]>;
}

/** A build given as `<name>=<bin>[,ENV=value…]`, as COPIES processes. */
function parseBuild(arg: string): Build[] {
  const name = arg.slice(0, arg.indexOf('='));
  const [bin, ...pairs] = arg.slice(arg.indexOf('=') + 1).split(',');
  const env = Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  return Array.from({ length: COPIES }, (_, copy) => ({
    name: copy === 0 ? name : `${name}#${copy + 1}`,
    group: name,
    bin: bin === 'this' ? THIS_BIN : bin!,
    env,
    rates: new Map(),
    cpuMicros: new Map(),
    statements: new Map(),
    requests: 0,
  }));
}

/** Every rate limit of that checkout out of the way: its own bucket names (an older one refuses a newer name). */
function limitsOf(bin: string): string {
  const rules = readFileSync(resolve(dirname(bin), '../src/limits/rules.ts'), 'utf8');
  const list = /BUCKET_NAMES = \[([^\]]*)\]/.exec(rules)![1]!;
  const names = [...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
  return JSON.stringify(Object.fromEntries(names.map((name) => [name, 10_000_000])));
}

async function start(build: Build, index: number): Promise<void> {
  const port = await freePort();
  // An older bin (without its own bounds) got the V8 flags from its bench's process helper; this one sets them.
  const flags = build.bin === THIS_BIN ? [] : ['--max-semi-space-size=4', '--max-old-space-size=512'];
  build.child = spawn(process.execPath, [...flags, build.bin, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'agent-wallet-versus-')),
      LOG_LEVEL: 'warn',
      SHUTDOWN_DRAIN_MS: '0',
      RATE_LIMITS: limitsOf(build.bin),
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_TOKEN,
      ...storeEnv(index),
      ...build.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  build.child.stderr!.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  build.url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i += 1) {
    const up = await fetch(`${build.url}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${build.name} did not start:\n${output}`);
}

async function prepare(base: string): Promise<Fixture> {
  const email = `versus${Date.now()}@example.test`;
  const signup = await request(base, 'POST', '/api/v1/auth/signup', undefined, {
    email,
    password: 'versus-bench-password-123',
  });
  const token = signup.body.data.token;
  await request(base, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '1000000000' });
  const fixture: Fixture = { token, walletIds: [], keys: [], addresses: [], cappedKey: '' };
  const newWallet = async (label: string) => {
    const wallet = (await request(base, 'POST', '/api/v1/agent-wallets', token, { label })).body.data;
    await request(base, 'POST', `/api/v1/agent-wallets/${wallet.id}/fund`, token, { amount: '10000000' });
    return wallet;
  };
  const keyOf = async (walletId: string) =>
    (await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, { label: 'v' })).body.data
      .key;
  for (let i = 0; i < WALLETS; i += 1) {
    const wallet = await newWallet(`v ${i}`);
    fixture.walletIds.push(wallet.id);
    fixture.addresses.push(wallet.address);
    fixture.keys.push(await keyOf(wallet.id));
  }
  // As the benchmark's "hot wallet with daily and total caps".
  const capped = await newWallet('capped');
  for (const [type, limit] of [
    ['spend_cap_daily', '1000000'],
    ['spend_cap_total', '1000000000'],
  ] as const) {
    await request(base, 'POST', `/api/v1/agent-wallets/${capped.id}/policies`, token, {
      type,
      params: { limit },
    });
  }
  fixture.cappedKey = await keyOf(capped.id);
  return fixture;
}

const pay = (key: string, toAddress: string): Shot => ({
  path: '/mcp/v1/tools/send_payment',
  token: key,
  body: { params: { toAddress, amount: '0.000001' } },
});

/** As the benchmark's "mix, half internal payments": 3 wallets, 30 workers. */
function mixed(f: Fixture) {
  return (worker: number, n: number): Shot => {
    const w = (worker + n) % 3;
    if (n % 4 === 0 || n % 4 === 1) return pay(f.keys[w]!, f.addresses[(w + 1) % 3]!);
    if (n % 4 === 2) return pay(f.keys[w]!, OUTSIDE);
    const direction = n % 8 === 3 ? 'fund' : 'withdraw';
    return {
      path: `/api/v1/agent-wallets/${f.walletIds[w]}/${direction}`,
      token: f.token,
      body: { amount: '0.01' },
    };
  };
}

const SCENARIOS: Record<string, (url: string, f: Fixture) => Promise<Measured>> = {
  check_balance: (url, f) =>
    hammer(
      url,
      f.keys.map((key) => ({ path: '/mcp/v1/tools/check_balance', token: key, body: {} })),
      LOAD,
    ),
  external: (url, f) =>
    hammer(
      url,
      f.keys.map((k) => pay(k, OUTSIDE)),
      LOAD,
    ),
  internal: (url, f) =>
    hammer(
      url,
      f.keys.map((k, i) => pay(k, f.addresses[(i + 1) % WALLETS]!)),
      LOAD,
    ),
  hot: (url, f) => hammer(url, [pay(f.keys[0]!, OUTSIDE)], LOAD),
  capped: (url, f) => hammer(url, [pay(f.cappedKey, OUTSIDE)], LOAD),
  mix: (url, f) => workerLoad(url, mixed(f), { seconds: SECONDS, workers: 30 }),
};

const TICKS_PER_SECOND = 100;

/** Stops a service gracefully, or kills it after STOP_WAIT_MS. */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
  await exited;
  clearTimeout(timer);
}

/** The statements the service has sent to its database so far, from its own counter. */
async function statementsOf(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(response.status, 200, 'GET /metrics answers');
  const line = /^agent_wallet_db_statements_total (\d+)$/m.exec(await response.text());
  assert(line !== null, 'the statements counter is exported');
  return Number(line[1]);
}

/** The process's CPU time so far (all its threads), in µs: /proc/<pid>/stat's utime + stime. */
function cpuMicrosOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the line, counted from the state (field 3) after the command's parentheses.
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND;
}

const push = (map: Map<string, number[]>, key: string, value: number) =>
  map.set(key, [...(map.get(key) ?? []), value]);

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

assert(
  Number.isInteger(COPIES) && COPIES >= 1 && COPIES <= COPIES_MAX,
  `VERSUS_COPIES is 1 to ${COPIES_MAX}`,
);
const builds = process.argv.slice(2).flatMap(parseBuild);
const groups = [...new Set(builds.map((b) => b.group))];
/** A build's values of a scenario, over all its copies. */
const valuesOf = (group: string, of: (b: Build) => Map<string, number[]>, scenario: string) =>
  builds.filter((b) => b.group === group).flatMap((b) => of(b).get(scenario)!);
const scenarios = (process.env.VERSUS_SCENARIOS ?? Object.keys(SCENARIOS).join(',')).split(',');
try {
  for (const [index, build] of builds.entries()) await start(build, index);
  for (const build of builds) build.fixture = await prepare(build.url!);
  for (const scenario of scenarios) {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let i = 0; i < builds.length; i += 1) {
        const build = builds[(round + i) % builds.length]!;
        const statementsBefore = await statementsOf(build.url!);
        const cpuBefore = cpuMicrosOf(build.child!.pid!);
        const measured = await SCENARIOS[scenario]!(build.url!, build.fixture!);
        const cpuAfter = cpuMicrosOf(build.child!.pid!);
        if (measured.errors5xx > 0) throw new Error(`${build.name}: ${measured.errors5xx} 5xx`);
        push(build.rates, scenario, measured.requestsPerSecond);
        build.requests += measured.requests;
        push(build.cpuMicros, scenario, (cpuAfter - cpuBefore) / measured.requests);
        const statements = (await statementsOf(build.url!)) - statementsBefore;
        push(build.statements, scenario, statements / measured.requests);
      }
    }
    const line = builds.map(
      (b) =>
        `${b.name} ${b.rates
          .get(scenario)!
          .map((r) => r.toFixed(0))
          .join('/')}`,
    );
    console.error(`${scenario}: ${line.join(', ')}`);
    console.error(
      `  CPU µs a request: ${builds
        .map(
          (b) =>
            `${b.name} ${b.cpuMicros
              .get(scenario)!
              .map((c) => c.toFixed(0))
              .join('/')}`,
        )
        .join(', ')}`,
    );
    console.error(
      `  statements a request: ${builds.map((b) => `${b.name} ${median(b.statements.get(scenario)!).toFixed(2)}`).join(', ')}`,
    );
  }
  console.log(
    `${ROUNDS} interleaved rounds × ${SECONDS} s per scenario${COPIES > 1 ? `, ${COPIES} processes of each build` : ''}. Each cell: the median req/s and its ratio to ${groups[0]}'s; then the service's median CPU time per request (user + system, all threads) and its ratio (below 1: cheaper).\n`,
  );
  console.log(`| scenario | ${groups.join(' | ')} |`);
  console.log(`|---|${groups.map(() => '---:').join('|')}|`);
  for (const scenario of scenarios) {
    const reference = median(valuesOf(groups[0]!, (b) => b.rates, scenario));
    const cpuReference = median(valuesOf(groups[0]!, (b) => b.cpuMicros, scenario));
    const cells = groups.map((group) => {
      const m = median(valuesOf(group, (b) => b.rates, scenario));
      const cpu = median(valuesOf(group, (b) => b.cpuMicros, scenario));
      return `${m.toFixed(0)} (${(m / reference).toFixed(2)}×); ${cpu.toFixed(0)} µs (${(cpu / cpuReference).toFixed(2)}×)`;
    });
    console.log(`| ${scenario} | ${cells.join(' | ')} |`);
  }
  console.error(`requests measured: ${builds.map((b) => `${b.name} ${b.requests}`).join(', ')}`);
} finally {
  // SIGTERM first: a build run with NODE_OPTIONS=--cpu-prof writes its profile as it stops.
  await Promise.all(builds.map((build) => stop(build.child)));
  await dropSchemas(builds.length);
}
