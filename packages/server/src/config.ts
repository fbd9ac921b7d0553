// Configuration comes from the environment (contract section 6), parsed once at start into a typed object.
// Anything invalid stops the server with a message naming the variable.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type BucketName, parseRateLimits } from './limits/rules.ts';

export type Rail = 'sandbox' | 'evm';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** PostgreSQL schema to create and use (DATABASE_SCHEMA); undefined uses the connection's default. */
  databaseSchema: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  /** Prefix of every Redis key this deployment uses (several deployments can share one Redis). */
  redisKeyPrefix: string;
  /** HS256 key bytes: JWT_SECRET as UTF-8, or a secret generated once into DATA_DIR. */
  jwtSecret: Uint8Array;
  /** Seed of the wallet address derivation, generated once into DATA_DIR. */
  addressSecret: Uint8Array;
  trustProxy: boolean;
  rail: Rail;
  rateLimitsPerMinute: Record<BucketName, number>;
  approvalTtlSeconds: number;
  /** Most writes per group commit (LEDGER_BATCH_MAX, SQLite): 1 turns group commit off, for comparison. */
  ledgerBatchMax: number;
  logLevel: string;
  /** DB_CONNECT_TIMEOUT_MS: most time to open a PostgreSQL connection or wait for a pooled one. */
  dbConnectTimeoutMs: number;
  /** DB_STATEMENT_TIMEOUT_MS: most time one PostgreSQL statement may run (SQLite: most wait for its lock). */
  dbStatementTimeoutMs: number;
  /** Served at `/`; undefined when the dashboard has not been built. */
  dashboardDir: string | undefined;
  /** Things an operator should know, logged at start (a weak JWT_SECRET, per-instance secrets). */
  warnings: string[];
}

export class ConfigError extends Error {}

const APPROVAL_TTL_SECONDS_DEFAULT = 72 * 60 * 60;
const SECRET_BYTES = 32;
const JWT_SECRET_LENGTH_MIN = 32;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR ?? './data');
  const rail = parseRail(env.RAIL);
  const warnings = configWarnings(env);
  return {
    warnings,
    port: parseInteger('PORT', env.PORT, 8787, 0, 65_535),
    host: env.HOST ?? '127.0.0.1',
    databaseUrl: emptyToUndefined(env.DATABASE_URL),
    databaseSchema: emptyToUndefined(env.DATABASE_SCHEMA),
    dataDir,
    redisUrl: emptyToUndefined(env.REDIS_URL),
    redisKeyPrefix: env.REDIS_PREFIX ?? 'agent-wallet:',
    jwtSecret: jwtSecretFrom(env.JWT_SECRET, dataDir),
    addressSecret: generatedSecret(dataDir, 'address-secret'),
    trustProxy: parseBoolean('TRUST_PROXY', env.TRUST_PROXY),
    rail,
    rateLimitsPerMinute: wrap('RATE_LIMITS', () => parseRateLimits(emptyToUndefined(env.RATE_LIMITS))),
    approvalTtlSeconds: parseInteger(
      'APPROVAL_TTL_SECONDS',
      env.APPROVAL_TTL_SECONDS,
      APPROVAL_TTL_SECONDS_DEFAULT,
      60,
      30 * 24 * 60 * 60,
    ),
    ledgerBatchMax: parseInteger('LEDGER_BATCH_MAX', env.LEDGER_BATCH_MAX, 256, 1, 10_000),
    logLevel: env.LOG_LEVEL ?? 'info',
    dbConnectTimeoutMs: parseInteger('DB_CONNECT_TIMEOUT_MS', env.DB_CONNECT_TIMEOUT_MS, 5_000, 100, 600_000),
    dbStatementTimeoutMs: parseInteger(
      'DB_STATEMENT_TIMEOUT_MS',
      env.DB_STATEMENT_TIMEOUT_MS,
      5_000,
      100,
      600_000,
    ),
    dashboardDir: dashboardDirFrom(env.DASHBOARD_DIR),
  };
}

function parseRail(value: string | undefined): Rail {
  const rail = value ?? 'sandbox';
  if (rail === 'sandbox') return rail;
  if (rail === 'evm') {
    throw new ConfigError('RAIL=evm is not available in this version yet; use RAIL=sandbox (the default)');
  }
  throw new ConfigError(`RAIL must be "sandbox" or "evm", not ${JSON.stringify(rail)}`);
}

function jwtSecretFrom(value: string | undefined, dataDir: string): Uint8Array {
  if (value === undefined || value === '') return generatedSecret(dataDir, 'jwt-secret');
  return new TextEncoder().encode(value);
}

function configWarnings(env: NodeJS.ProcessEnv): string[] {
  const warnings: string[] = [];
  const secret = env.JWT_SECRET ?? '';
  if (secret !== '' && secret.length < JWT_SECRET_LENGTH_MIN) {
    warnings.push(
      `JWT_SECRET is ${secret.length} characters; use at least ${JWT_SECRET_LENGTH_MIN} random ones`,
    );
  }
  if (secret === '' && (env.DATABASE_URL ?? '') !== '') {
    warnings.push(
      'JWT_SECRET is not set: each instance generates its own, so tokens work only on the instance that issued them',
    );
  }
  return warnings;
}

/** Reads DATA_DIR/<name>, creating it (mode 0600, 32 random bytes as hex) the first time. */
function generatedSecret(dataDir: string, name: string): Uint8Array {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, name);
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(SECRET_BYTES).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw new ConfigError(`${file} is not a 64-hex-digit secret`);
  return new TextEncoder().encode(text);
}

function dashboardDirFrom(value: string | undefined): string | undefined {
  const dir = value ?? resolve(import.meta.dirname, '../../dashboard/dist');
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

function parseInteger(name: string, value: string | undefined, fallback: number, min: number, max: number) {
  if (value === undefined || value === '') return fallback;
  if (!/^[0-9]+$/.test(value))
    throw new ConfigError(`${name} must be a whole number, not ${JSON.stringify(value)}`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return parsed;
}

function parseBoolean(name: string, value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new ConfigError(`${name} must be true or false, not ${JSON.stringify(value)}`);
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function wrap<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
