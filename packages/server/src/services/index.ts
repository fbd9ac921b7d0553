import type { Logger } from 'pino';
import type { EvmRail } from '../chain/rail.ts';
import { prepareRail } from '../chain/setup.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { DAY_MS } from '../domain/policies/policies.ts';
import { createLedgerWriter, type LedgerWriter } from '../ledger/writer.ts';
import { createRateLimiter, type RateLimiter } from '../limits/limiter.ts';
import { createMetrics, type Metrics } from '../metrics.ts';
import { openStore, type Store } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { type AlertService, createAlertService } from './alerts/alerts.ts';
import { startBackground } from './background.ts';
import type { MoneyWriter, ServiceContext } from './context.ts';
import { createEmailWorker } from './email/delivery.ts';
import { createNotificationService, type NotificationService } from './email/notifications.ts';
import { type HealthView, health } from './health.ts';
import { type AuthService, createAuthService } from './identity/auth.ts';
import { createMfaService, type MfaService } from './identity/factors.ts';
import { createPasskeyService, type PasskeyService, relyingParty } from './identity/passkeys.ts';
import { purgeEndedSessions } from './identity/sessions.ts';
import { createKeyService, type KeyService, type KeySignals } from './keys/keys.ts';
import { type ApprovalService, createApprovalService } from './money/approvals.ts';
import { executeMoneyBatch, type MoneyBatchOptions } from './money/batch.ts';
import { type CheckPaymentData, type CheckRequest, checkPayment } from './money/check-payment.ts';
import { createDepositService, type DepositService } from './money/deposits.ts';
import { purgeExpiredKeys } from './money/idempotency.ts';
import {
  createPaymentService,
  type PaymentOwners,
  type PaymentService,
  type PayoutGate,
} from './money/payments.ts';
import {
  createWithdrawalService,
  type WithdrawalOwners,
  type WithdrawalService,
} from './money/withdrawals.ts';
import { createOAuthService, type OAuthService, purgeEndedOAuth } from './oauth/authorization-server.ts';
import {
  type AuditLog,
  createAuditLog,
  createSecurityEventLog,
  type SecurityEventLog,
} from './organizations/log-reads.ts';
import { createOrganizationService, type OrganizationService } from './organizations/organizations.ts';
import { createPolicyService, type PolicyService } from './policies/policies.ts';
import type { EvmServices } from './rail/evm.ts';
import { type ExternalRail, evmExternalRail, sandboxRail } from './rail/external.ts';
import { purgeSent } from './retention.ts';
import type { AddressSource } from './wallets/addresses.ts';
import { type BalanceViews, createBalanceViews } from './wallets/balance-view.ts';
import { createTransactionReads, type TransactionReads } from './wallets/transaction-reads.ts';
import { ownedWallet, type WalletRow } from './wallets/wallet-rows.ts';
import { type AgentWalletView, agentWalletView, agentWalletViews } from './wallets/wallet-views.ts';
import { createWalletService, type WalletService } from './wallets/wallets.ts';
import { createWebhookWorker, deliveryHolder } from './webhooks/webhook-delivery.ts';
import { createWebhookService, type WebhookService } from './webhooks/webhooks.ts';

/** A payment an owner tries out (policy simulation). */
export interface SimulatedPayment {
  toAddress: string;
  amountMicros: bigint;
}

export interface Services {
  config: Config;
  clock: Clock;
  store: Store;
  writer: LedgerWriter;
  /** check_balance's reads (exactly cached on SQLite). */
  balances: BalanceViews;
  auth: AuthService;
  mfa: MfaService;
  passkeys: PasskeyService;
  withdrawals: WithdrawalService;
  wallets: WalletService;
  /** Transactions as routes and tools read them, behind the ownership check. */
  transactions: TransactionReads;
  /** The audit log: begun and sealed around every session write, read by GET /audit. */
  audit: AuditLog;
  securityEvents: SecurityEventLog;
  deposits: DepositService;
  keys: KeyService;
  /** OAuth for agent hosts (contract section 12): registration, consent, tokens, revocation. */
  oauth: OAuthService;
  policies: PolicyService;
  payments: PaymentService;
  approvals: ApprovalService;
  organizations: OrganizationService;
  alerts: AlertService;
  webhooks: WebhookService;
  /** One round of the webhook worker (the background runs it every second; tests call it by hand). */
  deliverWebhooks(): Promise<number>;
  /** One round of the mail worker (run beside the webhook worker): mails sent; 0 when email is off. */
  sendEmails(): Promise<number>;
  /** A member's choice of the email they receive. */
  notifications: NotificationService;
  /** What send_payment would decide now (check_payment, policy simulation): nothing stored. */
  checkPayment(request: CheckRequest): Promise<CheckPaymentData>;
  /** The owner's dry run of a payment from one of their agent wallets (404 for another user's wallet). */
  simulatePayment(userId: string, walletId: string, payment: SimulatedPayment): Promise<CheckPaymentData>;
  limiter: RateLimiter;
  metrics: Metrics;
  /** Where payments to outside addresses settle (sandbox or evm): what the services ask of the rail. */
  rail: ExternalRail;
  /** The evm rail and its duties (tests run them by hand); null on the sandbox rail. */
  chain: EvmServices | null;
  /** An agent wallet as the REST API shows it, with its remaining spending caps. */
  agentWalletView(row: WalletRow): Promise<AgentWalletView>;
  /** A page of them in three queries, and the user's pending approvals across all wallets. */
  agentWalletViews(
    rows: readonly WalletRow[],
    userId: string,
  ): Promise<{ items: AgentWalletView[]; pendingOfUser: number }>;
  health(): Promise<HealthView>;
  /** Set when a SIGTERM began the drain: /health/ready answers 503 so load balancers stop sending requests. */
  lifecycle: { draining: boolean };
  close(): Promise<void>;
}

/**
 * What the faces (routes, tools, MCP, the HTTP hooks) are handed: the services without the store and the ledger
 * writer. A query or a write in a face would escape the ownership checks, locks and batching the services apply,
 * so they reach data only through the methods above (the app and the entry hold the whole).
 */
export type { HealthView } from './health.ts';
export type FaceServices = Omit<Services, 'store' | 'writer'>;

export interface ServiceOptions {
  clock: Clock;
  /** PostgreSQL schema (tests give each suite its own); undefined uses the connection's default. */
  postgresSchema?: string;
  /** Background duties (expiry sweeps, lastUsedAt flushes); tests turn them off and call them directly. */
  backgroundIntervalMs?: number | null;
  logger: Logger;
}

const WRITE_QUEUE_LENGTH_MAX = 10_000;
const BACKGROUND_INTERVAL_MS_DEFAULT = 5_000;

export async function createServices(config: Config, options: ServiceOptions): Promise<Services> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    postgresSchema: options.postgresSchema ?? config.databaseSchema,
    postgresPoolSizeMax: config.dbPoolMax,
    sqliteBusyTimeoutMs: config.dbStatementTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    transactionPooling: config.databaseTransactionPooling,
    onConnectionError: (error) => options.logger.warn({ err: error }, 'database connection error'),
  });
  // Gauges read their sources at scrape time; the writer and limiter exist by then.
  const sources = {
    writer: undefined as LedgerWriter | undefined,
    limiter: undefined as RateLimiter | undefined,
    evm: undefined as EvmRail | undefined,
  };
  const metrics = createMetrics({
    writerQueueLength: () => sources.writer?.queueLength() ?? 0,
    pool: () => store.poolStats(),
    statements: () => store.statementCount(),
    redisUp: () => redisUpValue(sources.limiter?.redisStatus()),
    treasury: () => sources.evm?.treasury.latest() ?? undefined,
  });
  let limiter: RateLimiter;
  let opened: OpenedRail | null;
  try {
    await migrateToLatest(store.db, store.schema);
    opened = await openRail(store, config);
    limiter = await createRateLimiter({
      onRefused: (bucket) => metrics.rateLimitRefused(bucket),
      limitsPerMinute: config.rateLimitsPerMinute,
      clock: options.clock,
      redisUrl: config.redisUrl,
      redisKeyPrefix: config.redisKeyPrefix,
    });
  } catch (error) {
    // A start that fails half-way must not leave the pool open: it would keep the process alive for ever.
    await store.close().catch(() => undefined);
    throw error;
  }
  sources.limiter = limiter;
  sources.evm = opened?.rail;
  const services = assembleServices(config, options, { store, limiter, metrics, opened });
  sources.writer = services.writer;
  return services;
}

type ChainModule = typeof import('./rail/evm.ts');
export type OpenedRail = { rail: EvmRail; module: ChainModule };

/**
 * The evm rail, or on the sandbox rail only the database's agreement that it is a sandbox database. The chain
 * code (viem, measured at ~36 MB of resident memory) is loaded only here, only on `evm`.
 */
async function openRail(store: Store, config: Config): Promise<OpenedRail | null> {
  if (config.evm === null) {
    await prepareRail(store.db, { rail: 'sandbox', chainId: null, treasury: null });
    return null;
  }
  const module = await import('./rail/evm.ts');
  return { rail: await module.openEvmRail(store, config.evm), module };
}

function redisUpValue(status: 'up' | 'down' | undefined): number | undefined {
  if (status === undefined) return undefined;
  return status === 'up' ? 1 : 0;
}

/** Everything else is built synchronously over the opened store and limiter: nothing here can half-fail. */
interface Opened {
  store: Store;
  limiter: RateLimiter;
  metrics: Metrics;
  opened: OpenedRail | null;
}

function assembleServices(config: Config, options: ServiceOptions, opened: Opened): Services {
  const { store, limiter, metrics } = opened;
  const evm = opened.opened?.rail ?? null;
  // Email is on when SMTP is configured; the outbox then also queues mails for the events people receive.
  const events = { email: config.smtp !== null };
  options.logger.info(
    config.smtp === null
      ? 'email is off: SMTP_URL is not set'
      : `email is on: through ${config.smtp.location}`,
  );
  const rail = evm === null ? sandboxRail(config.addressSecret) : evmExternalRail(evm, store.db);
  const batchOptions = batchOptionsOf(config, store, rail, events);
  const writer = moneyWriterOf(config, store, metrics, batchOptions);
  const ctx: ServiceContext = { store, writer, clock: options.clock, events };
  const signals: KeySignals = { publishKeyChange: () => limiter.publishKeyChange() };
  // A key-lookup cache is safe only where every change reaches it: one process (SQLite), or Redis signals.
  const cacheLookups = store.dialect === 'sqlite' || config.redisUrl !== undefined;
  const keys = createKeyService(ctx, signals, { cacheLookups });
  const payoutGate = rail.payoutGate;
  const chain =
    opened.opened === null
      ? null
      : opened.opened.module.evmServices(ctx, opened.opened.rail, {
          warn: (m) => options.logger.warn(m),
          x402AllowPrivate: config.x402AllowPrivate,
          relyingParty: relyingParty(config.publicUrl, config.port),
        });
  const approvals = createApprovalService(ctx, payoutGate, chain?.owners ?? null);
  const delivery = startDelivery(ctx, config, options);
  const chainBackground = startChainDuties(chain, options);
  const background = startHousekeeping(ctx, options, config, { keys, approvals });
  const closing = (): Promise<void> =>
    closeInOrder(options.logger, [
      ['background duties', () => background.stop()],
      ['chain duties', () => chainBackground.stop()],
      ['webhook deliveries and mails', () => delivery.stop()],
      ['sender lease', () => chain?.duties.release() ?? Promise.resolve()],
      ['lastUsedAt flush', () => keys.flushLastUsed()],
      ['ledger writer', () => writer.close()],
      ['database', () => store.close()],
      ['rate limiter', () => limiter.close()],
    ]);
  return {
    config,
    clock: options.clock,
    store,
    writer,
    limiter,
    metrics,
    chain,
    keys,
    approvals,
    rail,
    ...peopleServices(ctx, config, keys, rail.addresses),
    ...moneyServices(ctx, config, { batchOptions, payoutGate, owners: chain?.owners ?? null }),
    webhooks: createWebhookService(ctx, config.webhookAllowPrivate),
    deliverWebhooks: () => delivery.webhooks.deliverDue(),
    sendEmails: () => delivery.email?.sendDue() ?? Promise.resolve(0),
    health: () => health(store, limiter, rail),
    lifecycle: { draining: false },
    close: closing,
  };
}

/** What the money batch needs to know of the deployment: the store's dialect, the rail, email, approvals. */
function batchOptionsOf(
  config: Config,
  store: Store,
  rail: ExternalRail,
  events: ServiceContext['events'],
): MoneyBatchOptions {
  return {
    dialect: store.dialect,
    events,
    railName: rail.name,
    railSettlesAtOnce: rail.settlesAtOnce,
    payoutFromAddress: rail.payoutFromAddress,
    approvalTtlMs: config.approvalTtlSeconds * 1000,
  };
}

function moneyWriterOf(
  config: Config,
  store: Store,
  metrics: Metrics,
  batchOptions: MoneyBatchOptions,
): MoneyWriter {
  return createLedgerWriter(store, {
    onBatch: (size) => metrics.ledgerBatch(size),
    mode: store.dialect === 'sqlite' ? 'batch' : 'concurrent',
    // Writes per group commit: large enough to amortise the fsync, small enough to keep latency low.
    batchSizeMax: config.ledgerBatchMax,
    queueLengthMax: WRITE_QUEUE_LENGTH_MAX,
    // Measured on PostgreSQL (32 wallets, 50 connections): 1 batch at a time 1,600 payments/s, 2 → 1,671,
    // 4 → 1,497, 10 → 1,152. Fewer batches in flight make each larger (fewer statements and commits per
    // payment); the rest of the pool stays free for reads and the other writes.
    batchesInFlightMax: Math.min(config.ledgerBatchesInFlight, config.dbPoolMax),
    executeCommands: (trx, commands, locked) => executeMoneyBatch(trx, commands, locked, batchOptions),
    conflictAttemptsMax: 3,
  });
}

/** The services of people: accounts and their factors, organizations, alerts, notices, wallets and reads. */
function peopleServices(ctx: ServiceContext, config: Config, keys: KeyService, addresses: AddressSource) {
  const { store, clock } = ctx;
  const mfa = createMfaService(ctx);
  const passkeys = createPasskeyService(ctx, relyingParty(config.publicUrl, config.port));
  return {
    auth: createAuthService(ctx, {
      jwtSecret: config.jwtSecret,
      addresses,
      mfa,
      passkeys,
      stepUpMaxAgeMs: config.stepUpMaxAgeSeconds * 1000,
    }),
    mfa,
    passkeys,
    organizations: createOrganizationService(ctx, keys),
    oauth: createOAuthService(ctx, keys, { allowPrivate: config.webhookAllowPrivate }),
    alerts: createAlertService(ctx),
    notifications: createNotificationService(ctx),
    wallets: createWalletService(ctx, addresses),
    balances: createBalanceViews(store, clock),
    transactions: createTransactionReads(store.db),
    audit: createAuditLog(store, ctx.writer),
    securityEvents: createSecurityEventLog(store),
    policies: createPolicyService(ctx),
    agentWalletView: (row: WalletRow) => agentWalletView(store.db, row, clock.nowMs()),
    agentWalletViews: (rows: WalletRow[], userId: string) =>
      agentWalletViews(store.db, rows, clock.nowMs(), userId),
  };
}

/** The services that move money: payments, withdrawals, deposits, and the dry run of a payment. */
function moneyServices(
  ctx: ServiceContext,
  config: Config,
  {
    batchOptions,
    payoutGate,
    owners,
  }: {
    batchOptions: MoneyBatchOptions;
    payoutGate: PayoutGate;
    owners: (WithdrawalOwners & PaymentOwners) | null;
  },
) {
  const { store, clock } = ctx;
  return {
    payments: createPaymentService(ctx, payoutGate, owners),
    withdrawals: createWithdrawalService(ctx, {
      delayMs: config.withdrawalAddressDelaySeconds * 1000,
      payoutGate,
      owners,
    }),
    deposits: createDepositService(ctx),
    checkPayment: (request: CheckRequest) => checkPayment(store, batchOptions, request),
    async simulatePayment(userId: string, walletId: string, payment: SimulatedPayment) {
      const wallet = await ownedWallet(store.db, userId, walletId, 'agent');
      return checkPayment(store, batchOptions, {
        walletId: wallet.id,
        actor: `user:${userId}`,
        ...payment,
        nowMs: clock.nowMs(),
      });
    },
  };
}

/** Webhook deliveries and mails, on their own timer: each tick only starts what is due. */
function startDelivery(ctx: ServiceContext, config: Config, options: ServiceOptions) {
  const webhooks = createWebhookWorker({
    ctx,
    allowPrivate: config.webhookAllowPrivate,
    holder: deliveryHolder(),
    onError: (error) => options.logger.error({ err: error }, 'webhook delivery round failed'),
  });
  const email =
    config.smtp === null
      ? null
      : createEmailWorker({
          ctx,
          smtp: config.smtp,
          // Links into the dashboard: PUBLIC_URL, else the service itself as passkeys see it.
          dashboardUrl: config.publicUrl ?? relyingParty(config.publicUrl, config.port).origin,
          holder: deliveryHolder(),
          onError: (error) => options.logger.error({ err: error }, 'email round failed'),
        });
  // Deliveries (and a round of mails) run on across ticks.
  const timer = startBackground(
    options.backgroundIntervalMs === null ? null : config.webhookPollIntervalMs,
    options.logger,
    {
      'deliver webhooks': () => webhooks.tick(),
      ...(email === null ? {} : { 'send emails': () => email.tick() }),
    },
  );
  const stop = () => timer.stop().then(() => Promise.all([webhooks.stop(), email?.stop()]));
  return { webhooks, email, stop };
}

function startChainDuties(chain: EvmServices | null, options: ServiceOptions) {
  return startBackground(
    chain === null || options.backgroundIntervalMs === null ? null : chain.rail.config.pollIntervalMs,
    options.logger,
    chain === null
      ? {}
      : {
          'watch deposits': chain.duties.watchDeposits,
          'send outbox': chain.duties.send,
          'settle x402 payments': chain.duties.settleX402,
        },
  );
}

/** Flushes, expiries and purges. null turns them off (tests run them by hand); undefined is the default. */
function startHousekeeping(
  { store, clock }: ServiceContext,
  options: ServiceOptions,
  config: Config,
  { keys, approvals }: { keys: KeyService; approvals: ApprovalService },
) {
  const sentKeptMs = config.eventRetentionDays * DAY_MS;
  return startBackground(
    options.backgroundIntervalMs === undefined
      ? BACKGROUND_INTERVAL_MS_DEFAULT
      : options.backgroundIntervalMs,
    options.logger,
    {
      'flush lastUsedAt': () => keys.flushLastUsed(),
      'expire approvals': () => approvals.expireDue(),
      'purge idempotency keys': () => purgeExpiredKeys(store.db, clock.nowMs()),
      'purge sessions': () => purgeEndedSessions(store.db, clock.nowMs()),
      'purge OAuth codes and tokens': () => purgeEndedOAuth(store.db, clock.nowMs()),
      'purge sent events and old denials': () => purgeSent(store.db, clock.nowMs(), sentKeptMs),
    },
  );
}

/**
 * Runs every closing step even when an earlier one fails, so a failed flush never leaves the database pool
 * or the Redis client open (an open handle keeps the process alive); the first failure is rethrown.
 */
async function closeInOrder(logger: Logger, steps: [string, () => Promise<unknown>][]): Promise<void> {
  let firstError: unknown;
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      logger.error({ err: error }, `closing failed: ${name}`);
      firstError ??= error;
    }
  }
  if (firstError !== undefined) throw firstError;
}

/** Health answers within this even when the database hangs (a hung database is a down one). */
