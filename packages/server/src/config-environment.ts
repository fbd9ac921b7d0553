// Every environment variable config.ts reads, in one typed table: its default, bounds and what it does. The
// parser takes defaults and bounds from here and the docs' reference (scripts/docs-reference.ts) prints the same
// entries, so the two cannot disagree.

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

export const TRUSTED_PROXY_HOPS_MAX = 32;
export const METRICS_TOKEN_LENGTH_MIN = 16;
export const JWT_SECRET_LENGTH_MIN = 32;
export const HTTP_MS_MIN = 100;
export const HTTP_MS_MAX = 3_600_000;

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
  EVENT_RETENTION_DAYS: {
    kind: 'integer',
    default: 30,
    min: 1,
    max: 3_650,
    description:
      'How many days webhook events, their deliveries and mails are kept after the event (an event with a delivery or a mail still pending stays until it settles). Payments, the ledger and the audit log are never purged.',
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

export type IntegerName = {
  [Name in keyof typeof ENVIRONMENT]: (typeof ENVIRONMENT)[Name]['kind'] extends 'integer' ? Name : never;
}[keyof typeof ENVIRONMENT];
export type TextNameWithDefault = {
  [Name in keyof typeof ENVIRONMENT]: (typeof ENVIRONMENT)[Name] extends { default: string } ? Name : never;
}[keyof typeof ENVIRONMENT];
export type BooleanName = {
  [Name in keyof typeof ENVIRONMENT]: (typeof ENVIRONMENT)[Name]['kind'] extends 'boolean' ? Name : never;
}[keyof typeof ENVIRONMENT];
