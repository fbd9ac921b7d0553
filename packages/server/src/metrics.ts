// Prometheus metrics (prom-client) for GET /metrics: requests and latency by route and status, payments by
// status and rail, rate-limit refusals by bucket, the ledger writer's queue and batch sizes, the database
// pool, Redis, and the process's own (event-loop lag, memory, CPU). One registry per service instance, so two
// instances in one test process never share counters. Gauges read their sources when scraped: no timers.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface MetricSources {
  writerQueueLength: () => number;
  /** PostgreSQL pool: connections checked out and callers waiting for one; undefined on SQLite. */
  pool: () => { inUse: number; waiting: number } | undefined;
  /** Statements sent to the database so far. */
  statements: () => number;
  /** 1 up, 0 down, undefined without Redis. */
  redisUp: () => number | undefined;
  /** The evm rail's last treasury reading; undefined on the sandbox rail or before the first reading. */
  treasury: () => { gasWei: bigint; usdcMicros: bigint; atRiskMicros: bigint } | undefined;
}

export interface Metrics {
  registry: Registry;
  httpRequest(labels: { method: string; route: string; status: number }, seconds: number): void;
  payment(status: string, rail: string): void;
  rateLimitRefused(bucket: string): void;
  ledgerBatch(size: number): void;
}

const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'agent_wallet_' });
  const counters = requestCounters(registry);
  registerGauges(registry, sources);
  return {
    registry,
    httpRequest: requestRecorder(counters),
    payment: (status, rail) => counters.payments.inc({ status, rail }),
    rateLimitRefused: (bucket) => counters.refusals.inc({ bucket }),
    ledgerBatch: (size) => counters.batchSizes.observe(size),
  };
}

/** Label sets one instance answers (methods × route patterns × statuses): a bound on the children kept. */
const REQUEST_LABEL_SETS_MAX = 2_048;

/**
 * Counts a request through the label set's own children, kept by label set: measured, prom-client hashing
 * the labels of a counter and a histogram on every request cost 4 % of check_balance's CPU.
 */
function requestRecorder(counters: ReturnType<typeof requestCounters>): Metrics['httpRequest'] {
  const children = new Map<string, { count: Counter.Internal; latency: Histogram.Internal<string> }>();
  return (labels, seconds) => {
    const id = `${labels.method} ${labels.route} ${labels.status}`;
    let child = children.get(id);
    if (child === undefined) {
      const named = { ...labels, status: String(labels.status) };
      if (children.size >= REQUEST_LABEL_SETS_MAX) children.clear();
      child = { count: counters.requests.labels(named), latency: counters.latency.labels(named) };
      children.set(id, child);
    }
    child.count.inc();
    child.latency.observe(seconds);
  };
}

function requestCounters(registry: Registry) {
  return {
    requests: new Counter({
      name: 'agent_wallet_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'agent_wallet_http_request_duration_seconds',
      help: 'Time from request to response, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    }),
    payments: new Counter({
      name: 'agent_wallet_payments_total',
      help: 'send_payment outcomes by transaction status (refused: no transaction recorded) and rail',
      labelNames: ['status', 'rail'],
      registers: [registry],
    }),
    refusals: new Counter({
      name: 'agent_wallet_rate_limit_refusals_total',
      help: 'Requests refused with 429, by rate-limit bucket',
      labelNames: ['bucket'],
      registers: [registry],
    }),
    batchSizes: new Histogram({
      name: 'agent_wallet_ledger_batch_size',
      help: 'Money operations committed together in one ledger transaction',
      buckets: BATCH_SIZE_BUCKETS,
      registers: [registry],
    }),
  };
}

function registerGauges(registry: Registry, sources: MetricSources): void {
  const gauge = (name: string, help: string, read: () => number | undefined) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const value = read();
        if (value !== undefined) this.set(value);
      },
    });
  gauge('agent_wallet_ledger_queue_length', 'Money operations waiting for or inside the ledger writer', () =>
    sources.writerQueueLength(),
  );
  gauge('agent_wallet_db_pool_in_use', 'PostgreSQL connections checked out', () => sources.pool()?.inUse);
  gauge(
    'agent_wallet_db_pool_waiting',
    'Callers waiting for a PostgreSQL connection',
    () => sources.pool()?.waiting,
  );
  let statementsSeen = 0;
  new Counter({
    name: 'agent_wallet_db_statements_total',
    help: 'Statements sent to the database (BEGIN and COMMIT included): round trips on PostgreSQL',
    registers: [registry],
    collect() {
      const now = sources.statements();
      this.inc(now - statementsSeen);
      statementsSeen = now;
    },
  });
  // Prometheus values are floats: these are for dashboards and alerts, never for deciding about money.
  gauge(
    'agent_wallet_treasury_gas_wei',
    'Native gas the evm treasury holds (pays every payout and sweep)',
    () => {
      const reading = sources.treasury();
      return reading === undefined ? undefined : Number(reading.gasWei);
    },
  );
  gauge('agent_wallet_treasury_usdc_micros', 'USDC micro-units the evm treasury holds on chain', () => {
    const reading = sources.treasury();
    return reading === undefined ? undefined : Number(reading.usdcMicros);
  });
  // Contract section 14: what a breach of the server could take now (float + remaining allowance). In hot mode the
  // service's key holds the whole treasury: all of it.
  gauge(
    'agent_wallet_treasury_at_risk_usdc_micros',
    'USDC micro-units a breach of the server could move now (hot mode: the whole treasury; bounded: float + remaining allowance)',
    () => {
      const reading = sources.treasury();
      return reading === undefined ? undefined : Number(reading.atRiskMicros);
    },
  );
  gauge('agent_wallet_redis_up', '1 when Redis answers, 0 when it does not (absent without Redis)', () =>
    sources.redisUp(),
  );
}
