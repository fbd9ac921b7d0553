// Configuration comes from the environment (contract section 6), parsed once at start into a typed object.
// Anything invalid stops the server with a message naming the variable.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { type EvmConfig, EvmConfigError, parseEvmConfig, type Rail } from './chain/config.ts';
import { type BucketName, parseRateLimits } from './limits/rules.ts';
import { registerSecret } from './log-scrub.ts';

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

/**
 * One environment variable this module reads. The parser takes defaults and bounds from here and the docs'
 * reference (scripts/docs-reference.ts) prints the same entries, so the two cannot disagree.
 */
export type EnvVariable =
  | { kind: 'integer'; default: number; min: number; max: number; description: string }
  | { kind: 'boolean'; description: string }
  | {
      kind: 'text';
      /** The value an unset (or empty) variable stands for, when there is one. */
      default?: string;
      /** What an unset variable means, in words, when no single value stands for it. */
      unset?: string;
      /** The only values taken, when the variable is a choice. */
      values?: readonly string[];
      description: string;
    };

const TRUSTED_PROXY_HOPS_MAX = 32;
const METRICS_TOKEN_LENGTH_MIN = 16;
const JWT_SECRET_LENGTH_MIN = 32;
const HTTP_MS_MIN = 100;
const HTTP_MS_MAX = 3_600_000;

/** Every variable config.ts reads (the `evm` rail's own are in chain/config.ts), in the reference's order. */
export const ENVIRONMENT = {
  PORT: {
    kind: 'integer',
    default: 8787,
    min: 0,
    max: 65_535,
    description: 'The TCP port the service listens on.',
  },
  HOST: {
    kind: 'text',
    default: '127.0.0.1',
    description:
      'The interface it listens on. A server bound to loopback refuses, on every path, a `Host` that does not name this machine, `PUBLIC_URL`’s host or an `ALLOWED_ORIGINS` origin (DNS rebinding), unless `TRUSTED_PROXIES` is set.',
  },
  DATA_DIR: {
    kind: 'text',
    default: './data',
    description:
      'The embedded database and the generated secrets (`jwt-secret`, `address-secret`, and on the evm rail `treasury-mnemonic`; mode 0600).',
  },
  DATABASE_URL: {
    kind: 'text',
    unset: 'SQLite in `DATA_DIR`',
    description: '`postgres://…` selects PostgreSQL.',
  },
  DATABASE_SCHEMA: {
    kind: 'text',
    unset: 'the connection’s default',
    description: 'The PostgreSQL schema to create and use. Not with `DATABASE_POOL_MODE=transaction`.',
  },
  DATABASE_POOL_MODE: {
    kind: 'text',
    default: 'session',
    values: ['session', 'transaction'],
    description:
      '`transaction` behind PgBouncer’s transaction pooling: the service keeps no session state (give the schema as the role’s `search_path` instead of `DATABASE_SCHEMA`).',
  },
  DB_CONNECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 5_000,
    min: 100,
    max: 600_000,
    description: 'Most time to open a PostgreSQL connection or wait for a pooled one.',
  },
  DB_STATEMENT_TIMEOUT_MS: {
    kind: 'integer',
    default: 5_000,
    min: 100,
    max: 600_000,
    description:
      'Most time one statement may run (PostgreSQL `statement_timeout`; the client gives up 1 s later if the server is silent); on SQLite, the most time a write waits for its lock.',
  },
  DB_POOL_MAX: {
    kind: 'integer',
    default: 20,
    min: 1,
    max: 1_000,
    description: 'Most PostgreSQL connections this instance opens.',
  },
  LEDGER_BATCHES_IN_FLIGHT: {
    kind: 'integer',
    default: 1,
    min: 1,
    max: 16,
    description:
      'PostgreSQL: ledger batches one instance commits at once, on wallets apart. Measured on 2 cores, one batch at a time is faster (bigger batches, less CPU a payment: internal payments +10 %, external +7 % against 2); with more cores and a distant database, 2 may overlap round trips.',
  },
  LEDGER_BATCH_MAX: {
    kind: 'integer',
    default: 256,
    min: 1,
    max: 10_000,
    description: 'Most writes per group commit on SQLite; `1` turns group commit off (for comparison).',
  },
  REDIS_URL: {
    kind: 'text',
    unset: 'the in-process limiter',
    description: '`redis://…` shares rate limits, key revocations and caches across instances.',
  },
  REDIS_PREFIX: {
    kind: 'text',
    default: 'agent-wallet:',
    description: 'Prefix of every Redis key this deployment uses (several deployments can share one Redis).',
  },
  JWT_SECRET: {
    kind: 'text',
    unset: 'generated once into `DATA_DIR`',
    description: `The HS256 secret of session tokens, used as its UTF-8 bytes. Set it when running more than one instance (a warning says so); under ${JWT_SECRET_LENGTH_MIN} characters is a warning.`,
  },
  TRUSTED_PROXIES: {
    kind: 'text',
    unset: 'none: the socket’s address is the client’s',
    description: `Proxies whose \`X-Forwarded-For\` is believed: a hop count (1 to ${TRUSTED_PROXY_HOPS_MAX}) or a comma-separated list of addresses and CIDRs (\`10.0.0.0/8,127.0.0.1\`). The client IP is the nearest address not trusted, never the leftmost (client-written) one.`,
  },
  TRUST_PROXY: {
    kind: 'boolean',
    description:
      'Deprecated: `true` means `TRUSTED_PROXIES=1` (a warning says so at start); ignored when `TRUSTED_PROXIES` is set.',
  },
  ALLOWED_ORIGINS: {
    kind: 'text',
    unset: 'same origin only',
    description:
      'Comma-separated origins (`https://app.example.com`) allowed to call the API and `POST /mcp` from a browser, with CORS; any other `Origin` is a 403 `ORIGIN_NOT_ALLOWED`.',
  },
  PUBLIC_URL: {
    kind: 'text',
    unset: 'only loopback names and `ALLOWED_ORIGINS` origins',
    description:
      'Where users reach the service (`https://wallet.example.com`, behind any proxy): `http://` or `https://` without credentials, query or fragment. Every URL the service hands out (OAuth metadata for agent hosts, the `/mcp` challenge) comes from it, so set it on a public interface or behind a proxy (start-up warns). An `https://` URL turns on `Strict-Transport-Security: max-age=31536000; includeSubDomains` on every answer.',
  },
  METRICS_TOKEN: {
    kind: 'text',
    unset: '`/metrics` off',
    description: `At least ${METRICS_TOKEN_LENGTH_MIN} characters: \`GET /metrics\` (Prometheus text) answers \`Authorization: Bearer <METRICS_TOKEN>\`.`,
  },
  SMTP_URL: {
    kind: 'text',
    unset: 'no email',
    description:
      '`smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start), with `user:password@`; set together with `MAIL_FROM`. Never logged.',
  },
  MAIL_FROM: {
    kind: 'text',
    unset: 'no email',
    description:
      'The sender of email, `wallet@example.com` or `Agent Wallet <wallet@example.com>`; set together with `SMTP_URL`.',
  },
  RAIL: {
    kind: 'text',
    default: 'sandbox',
    values: ['sandbox', 'evm'],
    description:
      'The external settlement rail: `sandbox` (simulated money) or `evm` (real USDC on an EVM chain).',
  },
  RATE_LIMITS: {
    kind: 'text',
    unset: 'the default limits',
    description:
      'A JSON object of per-minute limits by bucket over the defaults, e.g. `{"check_balance":100}`.',
  },
  APPROVAL_TTL_SECONDS: {
    kind: 'integer',
    default: 72 * 60 * 60,
    min: 60,
    max: 30 * 24 * 60 * 60,
    description: 'How long a pending approval waits before it expires.',
  },
  STEP_UP_MAX_AGE_SECONDS: {
    kind: 'integer',
    default: 300,
    min: 10,
    max: 86_400,
    description:
      'How old a session’s proof of presence (login, `POST /auth/step-up`) may be for a sensitive operation.',
  },
  WITHDRAWAL_ADDRESS_DELAY_SECONDS: {
    kind: 'integer',
    default: 86_400,
    min: 0,
    max: 30 * 86_400,
    description: 'A new withdrawal address is usable this long after it is added (`0`: at once).',
  },
  SHUTDOWN_DRAIN_MS: {
    kind: 'integer',
    default: 5_000,
    min: 0,
    max: 600_000,
    description:
      'After SIGTERM, how long `/health/ready` answers 503 while requests are still served, before the socket closes.',
  },
  WEBHOOK_ALLOW_PRIVATE: {
    kind: 'boolean',
    description:
      'Let webhooks (and OAuth client metadata documents) reach loopback, private and link-local addresses, and `http://` (tests, private networks).',
  },
  WEBHOOK_POLL_INTERVAL_MS: {
    kind: 'integer',
    default: 1_000,
    min: 100,
    max: 3_600_000,
    description: 'How often the webhook worker looks for due deliveries.',
  },
  X402_ALLOW_PRIVATE: {
    kind: 'boolean',
    description:
      'Let `x402_fetch` and `paid_fetch` reach loopback, private and link-local addresses, and `http://` (tests, private networks).',
  },
  HTTP_HEADERS_TIMEOUT_MS: {
    kind: 'integer',
    default: 10_000,
    min: HTTP_MS_MIN,
    max: HTTP_MS_MAX,
    description: 'A request’s headers must arrive within this.',
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    kind: 'integer',
    default: 30_000,
    min: HTTP_MS_MIN,
    max: HTTP_MS_MAX,
    description: 'A whole request (headers and body) must arrive within this.',
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    kind: 'integer',
    default: 5_000,
    min: HTTP_MS_MIN,
    max: HTTP_MS_MAX,
    description: 'An idle kept-alive connection is closed after this.',
  },
  HTTP_IDLE_TIMEOUT_MS: {
    kind: 'integer',
    default: 60_000,
    min: HTTP_MS_MIN,
    max: HTTP_MS_MAX,
    description: 'A socket with no traffic either way is closed after this.',
  },
  HTTP_MAX_CONNECTIONS: {
    kind: 'integer',
    default: 1_000,
    min: 1,
    max: 1_000_000,
    description:
      'Connections beyond this are refused at once (file descriptors stay free for everyone else).',
  },
  LOG_LEVEL: {
    kind: 'text',
    default: 'info',
    description: 'The pino level; logs are JSON on stdout with secrets redacted.',
  },
  DASHBOARD_DIR: {
    kind: 'text',
    unset: '`packages/dashboard/dist`',
    description: 'The built dashboard to serve at `/` (none is served when it holds no `index.html`).',
  },
} as const satisfies Record<string, EnvVariable>;

type IntegerName = {
  [Name in keyof typeof ENVIRONMENT]: (typeof ENVIRONMENT)[Name]['kind'] extends 'integer' ? Name : never;
}[keyof typeof ENVIRONMENT];
type TextNameWithDefault = {
  [Name in keyof typeof ENVIRONMENT]: (typeof ENVIRONMENT)[Name] extends { default: string } ? Name : never;
}[keyof typeof ENVIRONMENT];
type BooleanName = {
  [Name in keyof typeof ENVIRONMENT]: (typeof ENVIRONMENT)[Name]['kind'] extends 'boolean' ? Name : never;
}[keyof typeof ENVIRONMENT];

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
