// A real service per test suite on a real store: embedded SQLite in a temp dir, or PostgreSQL in a schema of
// its own. Requests go through Fastify's inject (the whole HTTP stack, no socket). Time is a ManualClock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { ManualClock } from '../../src/clock.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createServer, type RunningServer } from '../../src/server.ts';
import type { Services } from '../../src/services/index.ts';
import { POSTGRES_URL, probeService, uniqueName } from './services.ts';

export type StoreName = 'sqlite' | 'postgres';

export interface StoreTarget {
  name: StoreName;
  /** Set when the suite must skip on this store (no PostgreSQL on a laptop). */
  skip: string | false;
}

/** Every storage test runs on both stores. */
export async function storeTargets(): Promise<StoreTarget[]> {
  const pg = await probeService('PostgreSQL', POSTGRES_URL);
  return [
    { name: 'sqlite', skip: false },
    { name: 'postgres', skip: pg.available ? false : pg.skip },
  ];
}

/** Limits high enough that functional suites never meet them; rate-limit suites set their own. */
export const GENEROUS_RATE_LIMITS = JSON.stringify({
  check_balance: 1_000_000,
  send_payment: 1_000_000,
  get_tx_history: 1_000_000,
  request_approval: 1_000_000,
  login: 1_000_000,
  signup: 1_000_000,
  wallet: 1_000_000,
  agent_wallets: 1_000_000,
  health: 1_000_000,
  tool_unauthenticated: 1_000_000,
  login_account: 1_000_000,
  check_payment: 1_000_000,
  x402_fetch: 1_000_000,
  x402_sign: 1_000_000,
  paid_fetch: 1_000_000,
  mpp_sign: 1_000_000,
  mfa_code: 1_000_000,
  mcp_transport: 1_000_000,
  default: 1_000_000,
});

export interface Harness {
  store: StoreName;
  app: FastifyInstance;
  services: Services;
  config: Config;
  clock: ManualClock;
  dataDir: string;
  /** Set for PostgreSQL: the suite's own schema. */
  postgresSchema: string | undefined;
  server: RunningServer;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Log at info into this stream (tests that read log lines); no logs otherwise. */
  logTo?: DestinationStream;
  /**
   * Run the background duties on real timers (webhooks every WEBHOOK_POLL_INTERVAL_MS, the rest every this
   * many ms); by default they are off and tests call them by hand.
   */
  backgroundIntervalMs?: number;
}

/** Another instance on the harness's database (PostgreSQL: the same schema), with the same clock. */
export function secondInstance(h: Harness): Promise<RunningServer> {
  return createServer(h.config, {
    clock: h.clock,
    logLevel: false,
    backgroundIntervalMs: null,
    ...(h.postgresSchema === undefined ? {} : { postgresSchema: h.postgresSchema }),
  });
}

export async function startHarness(
  store: StoreName,
  label: string,
  options: HarnessOptions = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-test-'));
  const postgresSchema = store === 'postgres' ? uniqueName(label) : undefined;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    RATE_LIMITS: GENEROUS_RATE_LIMITS,
    // Two files run at once against one PostgreSQL (max_connections 100 by default): stay well inside it.
    DB_POOL_MAX: '10',
    ...(store === 'postgres' ? { DATABASE_URL: POSTGRES_URL } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 1, 12, 0, 0));
  const server = await createServer(config, {
    clock,
    logLevel: options.logTo === undefined ? false : 'info',
    ...(options.logTo === undefined ? {} : { logDestination: options.logTo }),
    // Tests move time by hand and call expiry and flushes themselves, unless they ask for the real timers.
    backgroundIntervalMs: options.backgroundIntervalMs ?? null,
    ...(postgresSchema === undefined ? {} : { postgresSchema }),
  });
  try {
    await server.app.ready();
  } catch (error) {
    // A suite whose before() fails never reaches after(): close here, or the pool keeps the process alive.
    await server.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    store,
    app: server.app,
    services: server.services,
    config,
    clock,
    dataDir,
    postgresSchema,
    server,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
