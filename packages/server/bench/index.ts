// `npm run bench`: the service against the references that bound it, measured in the same run on loopback —
// a bare Fastify route (what HTTP alone costs here) and the raw ledger ceiling (what the storage sustains for
// durable double-entry transfers). Every figure is a ratio to one of them, medians of BENCH_ROUNDS rounds of
// BENCH_SECONDS each; a scenario compared with the raw ceiling runs each of its rounds right after one of the
// ceiling's (pairedMedian). SQLite always; PostgreSQL when DATABASE_URL (default the local test database) answers
// (BENCH_STORES=sqlite leaves it out).
// Prints a markdown table and writes it to bench/results/. Not a test: speed is never asserted by `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BUCKET_NAMES } from '../src/limits/rules.ts';
import { freePort, type ServiceProcess, startServiceProcess } from '../test/support/processes.ts';
import { request } from '../test/support/service-http.ts';
import { probeService } from '../test/support/services.ts';
import { addHistory, type HistoryTarget } from './history.ts';
import { hammer, type Measured, type Shot, workerLoad } from './load.ts';
import { rawLedgerCeiling } from './raw-ledger.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WALLETS = 32;
const MIXED_WORKERS = 30;
const HISTORY_PAYMENTS = Number(process.env.BENCH_HISTORY ?? 1_000_000);
const POOL_MAX = 20;
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const METRICS_TOKEN = 'bench-metrics-token-bench-metrics-token';
const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const OUTSIDE = `0x${'ab'.repeat(20)}`;
const LIMITS = JSON.stringify(Object.fromEntries(BUCKET_NAMES.map((name) => [name, 10_000_000])));
const PASSWORD = 'bench-password-123';

interface Store {
  name: string;
  env: Record<string, string>;
  databaseUrl: string | undefined;
}

interface Fixture {
  token: string;
  email: string;
  walletIds: string[];
  keys: string[];
  addresses: string[];
}

interface Row extends Measured {
  scenario: string;
  reference: string;
  ratio: number | null;
}

/** The median round by throughput (a constant reference orders rounds as their req/s does); 5xx summed. */
async function median(run: () => Promise<Measured>): Promise<Measured> {
  return (await pairedMedian(run, async () => 1)).measured;
}

async function startBare(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'bare-fastify.ts')], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i += 1) {
    const up = await fetch(`${url}/bare`, { method: 'POST', body: '{}' }).then(
      () => true,
      () => false,
    );
    if (up) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

async function prepare(base: string): Promise<Fixture> {
  const email = `bench${Date.now()}@example.test`;
  const signup = await request(base, 'POST', '/api/v1/auth/signup', undefined, { email, password: PASSWORD });
  const token = signup.body.data.token;
  await request(base, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '1000000000' });
  const fixture: Fixture = { token, email, walletIds: [], keys: [], addresses: [] };
  for (let i = 0; i < WALLETS; i += 1) {
    const wallet = (await request(base, 'POST', '/api/v1/agent-wallets', token, { label: `bench ${i}` })).body
      .data;
    await request(base, 'POST', `/api/v1/agent-wallets/${wallet.id}/fund`, token, { amount: '10000000' });
    const key = (
      await request(base, 'POST', `/api/v1/agent-wallets/${wallet.id}/keys`, token, { label: 'b' })
    ).body.data.key;
    fixture.walletIds.push(wallet.id);
    fixture.addresses.push(wallet.address);
    fixture.keys.push(key);
  }
  return fixture;
}

const pay = (key: string, toAddress: string): Shot => ({
  path: '/mcp/v1/tools/send_payment',
  token: key,
  body: { params: { toAddress, amount: '0.000001' } },
});

/** The mix of issue 11: 3 wallets, half internal payments, the rest external payments and fund/withdraw. */
function mixedShot(fixture: Fixture, internal: boolean) {
  return (worker: number, n: number): Shot => {
    const w = (worker + n) % 3;
    const move = (direction: string): Shot => ({
      path: `/api/v1/agent-wallets/${fixture.walletIds[w]}/${direction}`,
      token: fixture.token,
      body: { amount: '0.01' },
    });
    switch (n % 4) {
      case 0:
      case 1:
        return internal
          ? pay(fixture.keys[w]!, fixture.addresses[(w + 1) % 3]!)
          : pay(fixture.keys[w]!, OUTSIDE);
      case 2:
        return pay(fixture.keys[w]!, OUTSIDE);
      default:
        return move(n % 8 === 3 ? 'fund' : 'withdraw');
    }
  };
}

async function scrape(base: string): Promise<{ statements: number; rssBytes: number }> {
  const text = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then(
    (r) => r.text(),
  );
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    statements: value('agent_wallet_db_statements_total'),
    rssBytes: value('agent_wallet_process_resident_memory_bytes'),
  };
}

function verifyLedger(env: Record<string, string>): string {
  const run = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return run.status === 0 ? 'passed' : `FAILED: ${(run.stdout + run.stderr).trim().slice(0, 500)}`;
}

await main();

async function main(): Promise<void> {
  const stores: Store[] = [
    { name: 'SQLite (embedded, WAL, synchronous=FULL)', env: {}, databaseUrl: undefined },
  ];
  const wantPostgres = (process.env.BENCH_STORES ?? 'sqlite,postgres').includes('postgres');
  if (wantPostgres && (await probeService('PostgreSQL', PG_URL)).available) {
    const schema = `bench_${Date.now().toString(36)}`;
    // A PostgreSQL deployment that grows runs several instances, which need Redis for shared limits; Redis
    // also lets each instance cache API keys exactly (revocations reach every cache).
    const redis = (await probeService('Redis', REDIS_URL)).available
      ? { REDIS_URL, REDIS_PREFIX: `${schema}:` }
      : undefined;
    stores.push({
      name: `PostgreSQL (synchronous_commit=on)${redis === undefined ? '' : ' + Redis (limits, exact key cache)'}`,
      env: { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, ...redis },
      databaseUrl: PG_URL,
    });
  } else console.error(`PostgreSQL not reachable at ${PG_URL}: SQLite only`);
  const header = `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), Node ${process.version}; ${ROUNDS} rounds × ${SECONDS} s, medians; autocannon ${CONNECTIONS} connections on loopback; ${WALLETS} wallets; pool ${POOL_MAX}.`;
  const sections = [`# Benchmark\n\n${header}\n`];
  for (const store of stores) sections.push(await benchStore(store));
  const report = sections.join('\n');
  console.log(report);
  const dir = resolve(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-')}.md`);
  writeFileSync(file, `${report}\n`);
  console.error(`written to ${file}`);
}

async function benchStore(store: Store): Promise<string> {
  const bare = await startBare();
  const bareRow = await median(() =>
    hammer(bare.url, [{ path: '/bare', token: undefined, body: { params: {} } }], {
      seconds: SECONDS,
      connections: CONNECTIONS,
    }),
  );
  bare.stop();
  const references: number[] = [];
  const rawRound = async () => {
    const transfersPerSecond = await rawLedgerCeiling(
      { databaseUrl: store.databaseUrl, schema: `bench_raw_${Date.now().toString(36)}` },
      SECONDS,
      POOL_MAX,
    );
    references.push(transfersPerSecond);
    return transfersPerSecond;
  };
  const env = {
    ...store.env,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'agent-wallet-bench-')),
    RATE_LIMITS: LIMITS,
    METRICS_TOKEN,
    DB_POOL_MAX: String(POOL_MAX),
    LOG_LEVEL: 'warn',
  };
  const service = await startServiceProcess(env);
  let measured: Awaited<ReturnType<typeof runScenarios>>;
  try {
    measured = await runScenarios(service, bareRow, rawRound, {
      databaseUrl: store.databaseUrl,
      schema: store.env.DATABASE_SCHEMA,
      dataDir: env.DATA_DIR,
    });
  } finally {
    await service.stop();
  }
  const verified = verifyLedger(env);
  if (store.databaseUrl !== undefined) await dropSchema(store.databaseUrl, store.env.DATABASE_SCHEMA!);
  return renderStore(store.name, measured, references, verified);
}

/**
 * A scenario measured against the raw ceiling: each round runs right after a round of the ceiling, and the ratio
 * is the median of the rounds' own ratios. This machine's speed drifts by ±25 % over minutes (other tenants);
 * measured minutes apart, the two sides of a ratio drifted apart too (the same build read 0.82× and 1.25×).
 */
async function pairedMedian(
  run: () => Promise<Measured>,
  reference: () => Promise<number>,
): Promise<{ measured: Measured; ratio: number }> {
  const rounds: Array<{ measured: Measured; ratio: number }> = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const base = await reference();
    const measured = await run();
    rounds.push({ measured, ratio: measured.requestsPerSecond / base });
  }
  return middleRound(rounds);
}

type Round = { measured: Measured; ratio: number };

/** The round of the median ratio, with the 5xx of all rounds. */
function middleRound(rounds: readonly Round[]): Round {
  const sorted = [...rounds].sort((a, b) => a.ratio - b.ratio);
  const middle = sorted[Math.floor(sorted.length / 2)]!;
  const errors5xx = rounds.reduce((sum, r) => sum + r.measured.errors5xx, 0);
  return { measured: { ...middle.measured, errors5xx }, ratio: middle.ratio };
}

/**
 * Rounds of three — the raw ceiling, the fresh wallet, the aged one — so that besides the drift, the two
 * wallets' 24-hour windows hold the same number of rounds' payments when each is measured. The fresh wallet's
 * rounds against the raw ceiling, the aged one's against the fresh.
 */
async function freshAndAged(
  rawRound: () => Promise<number>,
  fresh: () => Promise<Measured>,
  aged: () => Promise<Measured>,
): Promise<{ fresh: Round; aged: Round }> {
  const freshRounds: Round[] = [];
  const rawThenFresh = async () => {
    const rawRate = await rawRound();
    const measured = await fresh();
    freshRounds.push({ measured, ratio: measured.requestsPerSecond / rawRate });
    return measured.requestsPerSecond;
  };
  const agedMiddle = await pairedMedian(aged, rawThenFresh);
  return { fresh: middleRound(freshRounds), aged: agedMiddle };
}

async function runScenarios(
  service: ServiceProcess,
  bareRow: Measured,
  rawRound: () => Promise<number>,
  history: HistoryTarget,
) {
  const fixture = await prepare(service.url);
  const load = { seconds: SECONDS, connections: CONNECTIONS };
  const rows: Row[] = [{ ...bareRow, scenario: 'bare Fastify route', reference: '—', ratio: null }];
  const add = (scenario: string, m: Measured, reference: string, base: number | null) =>
    rows.push({ ...m, scenario, reference, ratio: base === null ? null : m.requestsPerSecond / base });
  let rssMaxBytes = 0;
  const track = async (run: () => Promise<Measured>): Promise<Measured> => {
    const value = await run();
    const { rssBytes } = await scrape(service.url);
    rssMaxBytes = Math.max(rssMaxBytes, rssBytes);
    return { ...value, rssBytes };
  };
  const hammered = (shots: readonly Shot[]) => () => hammer(service.url, shots, load);
  /** A payment scenario, each round right after a round of the raw ceiling (pairedMedian). */
  const push = async (scenario: string, reference: string, paired: Round) => {
    const measured = await track(async () => paired.measured);
    rows.push({ ...measured, scenario, reference, ratio: paired.ratio });
    return measured;
  };
  const againstRaw = async (scenario: string, shots: readonly Shot[]) =>
    push(scenario, 'raw ceiling', await pairedMedian(hammered(shots), rawRound));
  const balanceShots = fixture.keys.map((key) => ({
    path: '/mcp/v1/tools/check_balance',
    token: key,
    body: {},
  }));
  add(
    'check_balance, 32 keys',
    await track(() => median(hammered(balanceShots))),
    'bare',
    bareRow.requestsPerSecond,
  );
  // The statements are those of every round, so they are divided by every round's payments. Divided by the
  // median-ratio round's payments × ROUNDS, the figure was off by as much as that round's count was from the
  // mean, and rounds differ by 10–20 % here; bench/statements-probe.ts counts 6 statements per batch of about
  // 25 payments (0.24 a payment) at 39c5ad4 and now alike, where this line had read 0.24 and then 0.27–0.28.
  let payments = 0;
  const countingPayments = (run: () => Promise<Measured>) => async () => {
    const measured = await run();
    payments += measured.requests;
    return measured;
  };
  const before = await scrape(service.url);
  await push(
    'send_payment external, 32 wallets',
    'raw ceiling',
    await pairedMedian(countingPayments(hammered(fixture.keys.map((k) => pay(k, OUTSIDE)))), rawRound),
  );
  const after = await scrape(service.url);
  const statementsPerPayment = (after.statements - before.statements) / payments;
  await againstRaw(
    'send_payment internal, 32 wallets',
    fixture.keys.map((k, i) => pay(k, fixture.addresses[(i + 1) % WALLETS]!)),
  );
  await againstRaw('send_payment, one hot wallet', [pay(fixture.keys[0]!, OUTSIDE)]);
  const mixedLoad = { seconds: SECONDS, workers: MIXED_WORKERS };
  const externalMix = await track(() =>
    median(() => workerLoad(service.url, mixedShot(fixture, false), mixedLoad)),
  );
  add('mix without internal payments (30 workers, 3 wallets)', externalMix, '—', null);
  add(
    'mix, half internal payments',
    await track(() => median(() => workerLoad(service.url, mixedShot(fixture, true), mixedLoad))),
    'mix without internal',
    externalMix.requestsPerSecond,
  );
  const login = [
    { path: '/api/v1/auth/login', token: undefined, body: { email: fixture.email, password: PASSWORD } },
  ];
  add('POST /auth/login', await track(() => median(hammered(login))), 'bare', bareRow.requestsPerSecond);
  const [freshKey, agedKey] = await agedWallets(service.url, fixture, history);
  const paired = await freshAndAged(
    rawRound,
    hammered([pay(freshKey, OUTSIDE)]),
    hammered([pay(agedKey, OUTSIDE)]),
  );
  await push('send_payment, hot wallet with daily and total caps', 'raw ceiling', paired.fresh);
  await push(
    `the same after ${HISTORY_PAYMENTS.toLocaleString('en')} prior payments`,
    'fresh wallet',
    paired.aged,
  );
  return { rows, statementsPerPayment, rssMaxBytes, rssPeakBytes: peakResidentBytes(service) };
}

/**
 * The process's true peak resident memory (Linux's VmHWM: the high-water mark since it started, between the
 * scrapes too), or null where /proc does not say.
 */
function peakResidentBytes(service: ServiceProcess): number | null {
  try {
    const status = readFileSync(`/proc/${service.child.pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}

/**
 * A payment's cost must not grow with the wallet's age: two wallets with the same daily and total caps, one
 * fresh and one with HISTORY_PAYMENTS payments before the last 24 hours, measured in turns (freshAndAged).
 * Their API keys, fresh first.
 */
async function agedWallets(
  base: string,
  fixture: Fixture,
  history: HistoryTarget,
): Promise<[string, string]> {
  // Two new wallets: the earlier scenarios' payments would sit in the 24-hour window of the old ones.
  const keys: string[] = [];
  const walletIds: string[] = [];
  for (const label of ['fresh', 'aged']) {
    const wallet = (await request(base, 'POST', '/api/v1/agent-wallets', fixture.token, { label })).body.data;
    await request(base, 'POST', `/api/v1/agent-wallets/${wallet.id}/fund`, fixture.token, {
      amount: '10000000',
    });
    for (const [type, params] of [
      ['spend_cap_daily', { limit: '1000000' }],
      ['spend_cap_total', { limit: '1000000000' }],
    ] as const) {
      await request(base, 'POST', `/api/v1/agent-wallets/${wallet.id}/policies`, fixture.token, {
        type,
        params,
      });
    }
    const key = await request(base, 'POST', `/api/v1/agent-wallets/${wallet.id}/keys`, fixture.token, {
      label,
    });
    keys.push(key.body.data.key);
    walletIds.push(wallet.id);
  }
  const startedMs = Date.now();
  await addHistory(history, walletIds[1]!, HISTORY_PAYMENTS);
  console.error(
    `${HISTORY_PAYMENTS} prior payments written in ${Math.round((Date.now() - startedMs) / 1000)} s`,
  );
  return [keys[0]!, keys[1]!];
}

function renderStore(
  name: string,
  measured: Awaited<ReturnType<typeof runScenarios>>,
  references: readonly number[],
  verified: string,
): string {
  const sorted = [...references].sort((a, b) => a - b);
  const raw = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  const lines = [
    `## ${name}`,
    '',
    `Raw ledger ceiling: **${Math.round(raw)} transfers/s** (one durable transaction each, plain loop; median ` +
      `of ${sorted.length} rounds, ${Math.round(sorted[0] ?? 0)}–${Math.round(sorted.at(-1) ?? 0)}). Each round ` +
      'of a scenario compared with it runs right after a round of it; its ratio is the median of those rounds’ ratios.',
    '',
    '| scenario | req/s | ratio | reference | p50 ms | p99 ms | 5xx | non-2xx | RSS after, MB |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const row of measured.rows) {
    const ratio = row.ratio === null ? '—' : `${row.ratio.toFixed(2)}×`;
    lines.push(
      `| ${row.scenario} | ${Math.round(row.requestsPerSecond)} | ${ratio} | ${row.reference} | ${row.p50Ms} | ${row.p99Ms} | ${row.errors5xx} | ${row.non2xx} | ${row.rssBytes === undefined ? '—' : Math.round(row.rssBytes / 1024 / 1024)} |`,
    );
  }
  lines.push(
    '',
    `Statements per external payment (BEGIN/COMMIT included, amortised): ${measured.statementsPerPayment.toFixed(2)}. ` +
      `Max RSS after a scenario: ${Math.round(measured.rssMaxBytes / 1024 / 1024)} MB; peak (VmHWM): ${measured.rssPeakBytes === null ? 'unknown' : `${Math.round(measured.rssPeakBytes / 1024 / 1024)} MB`}. verify-ledger afterwards: ${verified}.`,
    '',
  );
  return lines.join('\n');
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}
