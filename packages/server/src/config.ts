// Configuration comes from the environment (contract section 6), parsed once at start into a typed object.
// Anything invalid stops the server with a message naming the variable.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { type EvmConfig, EvmConfigError, parseEvmConfig, type Rail } from './chain/config.ts';
import {
  type BooleanName,
  ENVIRONMENT,
  type IntegerName,
  JWT_SECRET_LENGTH_MIN,
  METRICS_TOKEN_LENGTH_MIN,
  type TextNameWithDefault,
  TRUSTED_PROXY_HOPS_MAX,
} from './config-environment.ts';
import { type BucketName, parseRateLimits } from './limits/rules.ts';
import { registerSecret } from './log-scrub.ts';

export { ENVIRONMENT, type EnvVariable } from './config-environment.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** PostgreSQL schema to create and use (DATABASE_SCHEMA); undefined uses the connection's default. */
  databaseSchema: string | undefined;
  /** DATABASE_POOL_MODE=transaction: PostgreSQL behind PgBouncer's transaction pooling (no session state). */
  databaseTransactionPooling: boolean;
  dataDir: string;
  redisUrl: string | undefined;
  /** Prefix of every Redis key this deployment uses (several deployments can share one Redis). */
  redisKeyPrefix: string;
  /** HS256 key bytes: JWT_SECRET as UTF-8, or a secret generated once into DATA_DIR. */
  jwtSecret: Uint8Array;
  /** Seed of the wallet address derivation, generated once into DATA_DIR. */
  addressSecret: Uint8Array;
  /**
   * Which proxies' X-Forwarded-For is believed (TRUSTED_PROXIES): a hop count, a list of addresses and CIDRs,
   * or false (none: the socket's address is the client's). The client IP is the nearest untrusted address.
   */
  trustedProxies: number | string[] | false;
  /** Origins allowed to call the API and POST /mcp from a browser (ALLOWED_ORIGINS); empty: same origin only. */
  allowedOrigins: string[];
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may go to loopback, private and link-local addresses, and over http. */
  webhookAllowPrivate: boolean;
  /** X402_ALLOW_PRIVATE: x402_fetch may reach loopback, private and link-local addresses, and over http. */
  x402AllowPrivate: boolean;
  /** WEBHOOK_POLL_INTERVAL_MS: how often the webhook worker looks for due deliveries. */
  webhookPollIntervalMs: number;
  /** Bearer token of GET /metrics (METRICS_TOKEN); undefined turns the endpoint off. */
  metricsToken: string | undefined;
  /** PUBLIC_URL: where users reach the service (behind any proxy); an https:// one turns HSTS on. */
  publicUrl: string | undefined;
  /** SMTP_URL and MAIL_FROM: email for what needs a person (contract section 10); null (both unset): no email. */
  smtp: SmtpConfig | null;
  http: HttpLimits;
  rail: Rail;
  /** The `evm` rail's settings; null on the sandbox rail. */
  evm: EvmConfig | null;
  rateLimitsPerMinute: Record<BucketName, number>;
  approvalTtlSeconds: number;
  /** EVENT_RETENTION_DAYS: webhook events, their deliveries and mails are kept this long after the event. */
  eventRetentionDays: number;
  /** SHUTDOWN_DRAIN_MS: after SIGTERM, how long ready says 503 while requests are still served, before closing. */
  shutdownDrainMs: number;
  /** STEP_UP_MAX_AGE_SECONDS: how old a session's proof of presence may be for a sensitive operation. */
  stepUpMaxAgeSeconds: number;
  /** WITHDRAWAL_ADDRESS_DELAY_SECONDS: a new withdrawal address is usable this long after it is added. */
  withdrawalAddressDelaySeconds: number;
  /** Most writes per group commit (LEDGER_BATCH_MAX, SQLite): 1 turns group commit off, for comparison. */
  ledgerBatchMax: number;
  logLevel: string;
  /** DB_CONNECT_TIMEOUT_MS: most time to open a PostgreSQL connection or wait for a pooled one. */
  dbConnectTimeoutMs: number;
  /** DB_STATEMENT_TIMEOUT_MS: most time one PostgreSQL statement may run (SQLite: most wait for its lock). */
  dbStatementTimeoutMs: number;
  /** DB_POOL_MAX: most PostgreSQL connections this instance opens. */
  dbPoolMax: number;
  /** LEDGER_BATCHES_IN_FLIGHT: PostgreSQL ledger batches this instance commits at once (on wallets apart). */
  ledgerBatchesInFlight: number;
  /** Served at `/`; undefined when the dashboard has not been built. */
  dashboardDir: string | undefined;
  /** Things an operator should know, logged at start (a weak JWT_SECRET, per-instance secrets). */
  warnings: string[];
}

/** Explicit bounds on every connection, so slow or idle clients cannot hold sockets (and file descriptors). */
export interface HttpLimits {
  /** HTTP_REQUEST_TIMEOUT_MS: the whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  /** HTTP_HEADERS_TIMEOUT_MS: the headers must arrive within this. */
  headersTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** HTTP_IDLE_TIMEOUT_MS: a socket with no traffic either way is closed after this. */
  idleTimeoutMs: number;
  /** HTTP_MAX_CONNECTIONS: connections beyond this are refused at once. */
  maxConnections: number;
}

export interface SmtpConfig {
  /** smtp:// (STARTTLS when offered) or smtps:// (TLS from the start), with user:password; never logged. */
  url: string;
  /** The server without its credentials (`smtps://smtp.example.com:465`), for logs. */
  location: string;
  /** The password in the URL, when there is one: masked in anything the mail worker records or logs. */
  password: string | null;
  /** MAIL_FROM: the sender, `wallet@example.com` or `Agent Wallet <wallet@example.com>`. */
  from: string;
}

export class ConfigError extends Error {}

const SECRET_BYTES = 32;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(text(env, 'DATA_DIR'));
  const rail = parseRail(text(env, 'RAIL'));
  const warnings = configWarnings(env);
  return {
    warnings,
    port: integer(env, 'PORT'),
    host: text(env, 'HOST'),
    databaseUrl: emptyToUndefined(env.DATABASE_URL),
    databaseSchema: emptyToUndefined(env.DATABASE_SCHEMA),
    databaseTransactionPooling: parsePoolMode(env),
    dataDir,
    redisUrl: emptyToUndefined(env.REDIS_URL),
    redisKeyPrefix: text(env, 'REDIS_PREFIX'),
    jwtSecret: jwtSecretFrom(env.JWT_SECRET, dataDir),
    addressSecret: generatedSecret(dataDir, 'address-secret'),
    trustedProxies: parseTrustedProxies(env),
    allowedOrigins: parseAllowedOrigins(env.ALLOWED_ORIGINS),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    x402AllowPrivate: flag(env, 'X402_ALLOW_PRIVATE'),
    webhookPollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS'),
    metricsToken: parseMetricsToken(env.METRICS_TOKEN),
    publicUrl: parsePublicUrl(env.PUBLIC_URL),
    smtp: parseSmtp(emptyToUndefined(env.SMTP_URL), emptyToUndefined(env.MAIL_FROM)),
    http: parseHttpLimits(env),
    rail,
    evm: rail === 'evm' ? evmConfigFrom(env, dataDir) : null,
    rateLimitsPerMinute: wrap('RATE_LIMITS', () => parseRateLimits(emptyToUndefined(env.RATE_LIMITS))),
    approvalTtlSeconds: integer(env, 'APPROVAL_TTL_SECONDS'),
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS'),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS'),
    stepUpMaxAgeSeconds: integer(env, 'STEP_UP_MAX_AGE_SECONDS'),
    withdrawalAddressDelaySeconds: integer(env, 'WITHDRAWAL_ADDRESS_DELAY_SECONDS'),
    ledgerBatchMax: integer(env, 'LEDGER_BATCH_MAX'),
    logLevel: text(env, 'LOG_LEVEL'),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS'),
    dbPoolMax: integer(env, 'DB_POOL_MAX'),
    ledgerBatchesInFlight: integer(env, 'LEDGER_BATCHES_IN_FLIGHT'),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS'),
    dashboardDir: dashboardDirFrom(env.DASHBOARD_DIR),
  };
}

function parseRail(rail: string): Rail {
  if (rail === 'sandbox') return rail;
  if (rail === 'evm') return rail;
  throw new ConfigError(`RAIL must be "sandbox" or "evm", not ${JSON.stringify(rail)}`);
}

function evmConfigFrom(env: NodeJS.ProcessEnv, dataDir: string): EvmConfig {
  try {
    return parseEvmConfig(env, dataDir);
  } catch (error) {
    if (error instanceof EvmConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/** TRUSTED_PROXIES wins; TRUST_PROXY=true is its deprecated spelling of 1 (see configWarnings). */
function parseTrustedProxies(env: NodeJS.ProcessEnv): number | string[] | false {
  const value = emptyToUndefined(env.TRUSTED_PROXIES);
  if (value === undefined) return flag(env, 'TRUST_PROXY') ? 1 : false;
  if (/^[0-9]+$/.test(value)) return parseInteger('TRUSTED_PROXIES', value, 0, 1, TRUSTED_PROXY_HOPS_MAX);
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isAddressOrCidr(entry)) {
      throw new ConfigError(
        `TRUSTED_PROXIES must be a hop count (1) or a comma-separated list of addresses and CIDRs, and ${JSON.stringify(entry)} is neither`,
      );
    }
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  if (extra !== undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^[0-9]{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

function parseAllowedOrigins(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((entry) => {
    const origin = entry.trim();
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError(
        `ALLOWED_ORIGINS: ${JSON.stringify(origin)} is not an origin such as https://app.example.com`,
      );
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(
        `ALLOWED_ORIGINS: ${JSON.stringify(origin)} must be scheme://host[:port] with nothing after it`,
      );
    }
    return url.origin;
  });
}

function parseMetricsToken(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length < METRICS_TOKEN_LENGTH_MIN) {
    throw new ConfigError(`METRICS_TOKEN must be at least ${METRICS_TOKEN_LENGTH_MIN} characters`);
  }
  return value;
}

function parsePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(
      `PUBLIC_URL: ${JSON.stringify(value)} is not a URL such as https://wallet.example.com`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`PUBLIC_URL must be an http:// or https:// URL, not ${JSON.stringify(value)}`);
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError('PUBLIC_URL must not carry credentials, a query or a fragment');
  }
  return url.href.replace(/\/$/, '');
}

const MAIL_ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;

/** SMTP_URL and MAIL_FROM, both or neither. SMTP_URL holds a password: no message here repeats it. */
export function parseSmtp(url: string | undefined, from: string | undefined): SmtpConfig | null {
  if (url === undefined && from === undefined) return null;
  if (url === undefined)
    throw new ConfigError('MAIL_FROM is set but SMTP_URL is not: set both to send email, or neither');
  if (from === undefined)
    throw new ConfigError('SMTP_URL is set but MAIL_FROM is not: set both to send email, or neither');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('SMTP_URL is not a URL such as smtps://user:password@smtp.example.com:465');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new ConfigError(`SMTP_URL must start with smtp:// or smtps:// (got ${parsed.protocol}//…)`);
  }
  if (parsed.hostname === '') throw new ConfigError('SMTP_URL names no host');
  const password = parsed.password === '' ? null : decodeURIComponent(parsed.password);
  if (password !== null) registerSecret(password);
  const trimmed = from.trim();
  const address = /<([^<>]*)>$/.exec(trimmed)?.[1] ?? trimmed;
  if (!MAIL_ADDRESS.test(address) || /[\r\n]/.test(trimmed)) {
    throw new ConfigError(
      `MAIL_FROM must be an address such as wallet@example.com or "Agent Wallet <wallet@example.com>", not ${JSON.stringify(from)}`,
    );
  }
  const port = parsed.port === '' ? '' : `:${parsed.port}`;
  return { url, location: `${parsed.protocol}//${parsed.hostname}${port}`, password, from: trimmed };
}

function parseHttpLimits(env: NodeJS.ProcessEnv): HttpLimits {
  return {
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS'),
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS'),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'),
    idleTimeoutMs: integer(env, 'HTTP_IDLE_TIMEOUT_MS'),
    maxConnections: integer(env, 'HTTP_MAX_CONNECTIONS'),
  };
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
  const behindProxy = (env.TRUSTED_PROXIES ?? '') !== '' || flag(env, 'TRUST_PROXY');
  const publicInterface = !/^(127\.|localhost$|::1$)/.test(text(env, 'HOST'));
  if ((env.PUBLIC_URL ?? '') === '' && (behindProxy || publicInterface)) {
    warnings.push(
      'PUBLIC_URL is not set: the URLs this server hands out (OAuth metadata for agent hosts, the /mcp challenge) ' +
        'are built only for a loopback name or an ALLOWED_ORIGINS origin; set PUBLIC_URL to where users reach it',
    );
  }
  if (flag(env, 'TRUST_PROXY')) {
    warnings.push(
      (env.TRUSTED_PROXIES ?? '') === ''
        ? 'TRUST_PROXY=true is deprecated: it now means TRUSTED_PROXIES=1 (believe one proxy hop); set TRUSTED_PROXIES instead'
        : 'TRUST_PROXY is ignored because TRUSTED_PROXIES is set; remove TRUST_PROXY',
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

function parsePoolMode(env: NodeJS.ProcessEnv): boolean {
  const mode = emptyToUndefined(env.DATABASE_POOL_MODE) ?? ENVIRONMENT.DATABASE_POOL_MODE.default;
  if (mode !== 'session' && mode !== 'transaction')
    throw new ConfigError('DATABASE_POOL_MODE must be "session" (the default) or "transaction"');
  if (mode === 'transaction' && emptyToUndefined(env.DATABASE_SCHEMA) !== undefined) {
    throw new ConfigError(
      'DATABASE_SCHEMA needs a session setting, which transaction pooling does not keep: with DATABASE_POOL_MODE=transaction give the schema as the role’s search_path (ALTER ROLE … SET search_path) or in PgBouncer’s connect_query',
    );
  }
  return mode === 'transaction';
}

/** An integer variable, with the default and bounds of its ENVIRONMENT entry. */
function integer(env: NodeJS.ProcessEnv, name: IntegerName): number {
  const spec = ENVIRONMENT[name];
  return parseInteger(name, env[name], spec.default, spec.min, spec.max);
}

function flag(env: NodeJS.ProcessEnv, name: BooleanName): boolean {
  return parseBoolean(name, env[name]);
}

/** A text variable with a default in ENVIRONMENT: unset means the default (an empty value is kept as it was). */
function text(env: NodeJS.ProcessEnv, name: TextNameWithDefault): string {
  return env[name] ?? ENVIRONMENT[name].default;
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
