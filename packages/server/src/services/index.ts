// Builds every service from the configuration: the store, the one ledger writer, and the domain services.

import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { createLedgerWriter, type LedgerWriter } from '../ledger/writer.ts';
import { openStore, type Store } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { type AuthService, createAuthService } from './auth.ts';
import type { ServiceContext } from './context.ts';
import { createDepositService, type DepositService } from './deposits.ts';
import {
  type AgentWalletView,
  agentWalletView,
  createWalletService,
  type WalletRow,
  type WalletService,
} from './wallets.ts';

export interface Services {
  config: Config;
  clock: Clock;
  store: Store;
  writer: LedgerWriter;
  auth: AuthService;
  wallets: WalletService;
  deposits: DepositService;
  /** An agent wallet as the REST API shows it, with its remaining spending caps. */
  agentWalletView(row: WalletRow): Promise<AgentWalletView & CapsView>;
  health(): Promise<HealthView>;
  close(): Promise<void>;
}

export interface CapsView {
  dailyCapRemaining: string | null;
  totalCapRemaining: string | null;
}

export interface HealthView {
  status: 'ok' | 'degraded';
  database: 'up' | 'down';
  storage: 'sqlite' | 'postgres';
  rail: string;
  redis?: 'up' | 'down';
}

export interface ServiceOptions {
  clock: Clock;
  /** PostgreSQL schema (tests give each suite its own); undefined uses the connection's default. */
  postgresSchema?: string;
}

/** Writes per group commit on SQLite: large enough to amortise the fsync, small enough to keep latency low. */
const BATCH_SIZE_MAX = 256;
const WRITE_QUEUE_LENGTH_MAX = 10_000;
const PG_POOL_SIZE_MAX = 20;

export async function createServices(config: Config, options: ServiceOptions): Promise<Services> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    postgresSchema: options.postgresSchema,
    postgresPoolSizeMax: PG_POOL_SIZE_MAX,
    sqliteBusyTimeoutMs: 5_000,
  });
  await migrateToLatest(store.db);
  const writer = createLedgerWriter(store, {
    mode: store.dialect === 'sqlite' ? 'batch' : 'concurrent',
    batchSizeMax: BATCH_SIZE_MAX,
    queueLengthMax: WRITE_QUEUE_LENGTH_MAX,
    conflictAttemptsMax: 3,
  });
  const ctx: ServiceContext = { store, writer, clock: options.clock };
  return {
    config,
    clock: options.clock,
    store,
    writer,
    auth: createAuthService(ctx, config.jwtSecret, config.addressSecret),
    wallets: createWalletService(ctx, config.addressSecret),
    deposits: createDepositService(ctx),
    agentWalletView: async (row) => ({
      ...(await agentWalletView(store.db, row)),
      dailyCapRemaining: null,
      totalCapRemaining: null,
    }),
    health: async () => {
      const database = await sql`select 1`.execute(store.db).then(
        () => 'up' as const,
        () => 'down' as const,
      );
      return {
        status: database === 'up' ? 'ok' : 'degraded',
        database,
        storage: store.dialect,
        rail: config.rail,
      };
    },
    async close() {
      await writer.close();
      await store.close();
    },
  };
}
