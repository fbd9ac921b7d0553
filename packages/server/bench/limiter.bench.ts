// Rate-limiter throughput: checks per second of the memory and Redis stores, printed as a table.
// Not a test: run `node --expose-gc packages/server/bench/limiter.bench.ts` (REDIS_URL, default local).
// Redis rows are skipped with a line when Redis is not reachable.
import { createRedisClient, RedisLimitStore, waitForRedisReady } from '../src/limits/redis-store.ts';
import type { LimitDecision, LimitStore } from '../src/limits/store.ts';
import { MemoryLimitStore } from '../src/limits/store.ts';

const WINDOW_MS = 60_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Row {
  name: string;
  checks: number;
  inFlight: number;
  allowedShare: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs `checks` hits with at most `inFlight` outstanding, bucket i % buckets, and times each one. */
async function run(
  name: string,
  store: LimitStore,
  plan: { checks: number; buckets: number; limit: number; inFlight: number },
): Promise<Row> {
  const latenciesMs = new Float64Array(plan.checks);
  let next = 0;
  let allowed = 0;
  const worker = async () => {
    while (next < plan.checks) {
      const index = next;
      next += 1;
      const startMs = performance.now();
      const decision: LimitDecision = await store.hit(
        `bench|key:${index % plan.buckets}`,
        plan.limit,
        WINDOW_MS,
      );
      latenciesMs[index] = performance.now() - startMs;
      if (decision.allowed) allowed += 1;
    }
  };
  const startMs = performance.now();
  await Promise.all(Array.from({ length: plan.inFlight }, worker));
  const seconds = (performance.now() - startMs) / 1000;
  latenciesMs.sort();
  return {
    name,
    checks: plan.checks,
    inFlight: plan.inFlight,
    allowedShare: allowed / plan.checks,
    seconds,
    p50Ms: latenciesMs[Math.floor(plan.checks * 0.5)] ?? 0,
    p99Ms: latenciesMs[Math.floor(plan.checks * 0.99)] ?? 0,
  };
}

function memoryStore(): MemoryLimitStore {
  return new MemoryLimitStore({ nowMs: Date.now, maxBuckets: 1_000_000, sweepIntervalMs: 10_000 });
}

async function memoryRows(): Promise<Row[]> {
  const rows: Row[] = [];
  // Warm-up so the JIT has compiled the hot path before anything is timed.
  await run('warm-up', memoryStore(), { checks: 50_000, buckets: 1_000, limit: 60, inFlight: 1 });
  const plans = [
    { name: 'memory, 10k buckets, mostly allowed', checks: 200_000, buckets: 10_000, limit: 60, inFlight: 1 },
    { name: 'memory, 100 buckets, mostly refused', checks: 200_000, buckets: 100, limit: 10, inFlight: 1 },
  ];
  for (const { name, ...plan } of plans) {
    const store = memoryStore();
    rows.push(await run(name, store, plan));
    await store.close();
  }
  return rows;
}

async function redisRows(): Promise<Row[]> {
  const client = createRedisClient(REDIS_URL, { connectTimeoutMs: 1_000, commandTimeoutMs: 1_000 });
  try {
    if (!(await waitForRedisReady(client, 2_000))) {
      console.log(`Redis not reachable at ${REDIS_URL}; skipping the Redis rows`);
      return [];
    }
    const keyPrefix = `bench_${process.pid}_${Date.now()}:`;
    const store = new RedisLimitStore({ redis: client, keyPrefix, commandTimeoutMs: 1_000 });
    const rows = [
      await run('redis, 1 in flight (latency)', store, {
        checks: 2_000,
        buckets: 1_000,
        limit: 60,
        inFlight: 1,
      }),
      await run('redis, 64 in flight', store, { checks: 20_000, buckets: 10_000, limit: 60, inFlight: 64 }),
      await run('redis, 64 in flight, 1 hot bucket', store, {
        checks: 20_000,
        buckets: 1,
        limit: 60,
        inFlight: 64,
      }),
    ];
    await deleteKeys(client, keyPrefix);
    return rows;
  } finally {
    client.disconnect();
  }
}

async function deleteKeys(client: ReturnType<typeof createRedisClient>, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await client.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** Heap per idle bucket and the cost of one sweep, the two numbers that bound the memory store. */
function memoryFootprint(): string[] {
  const gc = (globalThis as { gc?: () => void }).gc;
  let nowMs = Date.now();
  const store = new MemoryLimitStore({ nowMs: () => nowMs, maxBuckets: 1_000_000, sweepIntervalMs: 60_000 });
  gc?.();
  const beforeBytes = process.memoryUsage().heapUsed;
  const buckets = 100_000;
  for (let i = 0; i < buckets; i += 1)
    store.hitSync(`login|ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 5, WINDOW_MS);
  gc?.();
  const perBucketBytes = (process.memoryUsage().heapUsed - beforeBytes) / buckets;
  nowMs += WINDOW_MS;
  const startMs = performance.now();
  const dropped = store.sweep();
  const sweepMs = performance.now() - startMs;
  void store.close();
  return [
    `memory store: ~${Math.round(perBucketBytes)} heap bytes per one-request bucket${gc ? '' : ' (run with --expose-gc for a steadier number)'}`,
    `memory store: sweep of ${dropped.toLocaleString('en-US')} expired buckets took ${sweepMs.toFixed(1)} ms`,
  ];
}

function printTable(rows: Row[]): void {
  const header = ['store', 'checks', 'in flight', 'allowed', 'seconds', 'checks/s', 'p50 ms', 'p99 ms'];
  const lines = rows.map((row) => [
    row.name,
    row.checks.toLocaleString('en-US'),
    String(row.inFlight),
    `${Math.round(row.allowedShare * 100)}%`,
    row.seconds.toFixed(3),
    Math.round(row.checks / row.seconds).toLocaleString('en-US'),
    row.p50Ms.toFixed(3),
    row.p99Ms.toFixed(3),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...lines.map((line) => line[i]?.length ?? 0)),
  );
  const format = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
}

printTable([...(await memoryRows()), ...(await redisRows())]);
for (const line of memoryFootprint()) console.log(line);
