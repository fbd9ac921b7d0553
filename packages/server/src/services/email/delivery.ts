// The mail worker (contract section 10): sends the email deliveries the outbox queued (services/webhooks/webhook-events.ts)
// over SMTP with nodemailer, from the same background loop as the webhook worker. At least once: a delivery is
// claimed by moving its next attempt past a lease (so two instances never send one at the same time), sent,
// then recorded; a crash between the send and the record leaves it pending, due again once the lease runs out,
// and it is sent again. A failed attempt is retried with the webhooks' backoff (30 s doubling to an hour, with
// jitter) for 24 hours, then marked failed; an SMTP server that cannot be reached ends the round, so an outage
// costs one attempt per round, not one per queued mail. A mail is rendered when it is sent
// (domain/email.ts renderMail), from an allowlist of the event's fields, to the member's address of that
// moment; a member who left, or no longer receives that kind, is skipped (dropped) — except the member a role
// change or removal is about, who is told at their address whatever their role now, also once removed.
import { createRequire } from 'node:module';
import type * as Nodemailer from 'nodemailer';
import type { SmtpConfig } from '../../config.ts';
import {
  type EmailKind,
  emailKindOf,
  isAboutRecipient,
  type MailMember,
  parseOffList,
  receivesMail,
  renderMail,
} from '../../domain/email/mail.ts';
import { isRole } from '../../domain/organizations/roles.ts';
import type { ServiceContext } from '../context.ts';
import { backoffMs, RETRY_WINDOW_MS } from '../webhooks/webhook-delivery.ts';

/** How long a claim lasts: well past the longest attempt (connect 10 s + greeting 10 s + socket 30 s). */
const LEASE_MS = 2 * 60_000;
/** Due deliveries read per round. */
const ROUND_READ_MAX = 20;
const ERROR_LENGTH_MAX = 300;
/** nodemailer's codes for a server that cannot be reached or will not let us in: every other mail fails too. */
const UNREACHABLE_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'EAUTH', 'ETLS', 'EPROXY']);

export interface EmailDeps {
  ctx: ServiceContext;
  smtp: SmtpConfig;
  /** The dashboard's origin (PUBLIC_URL, else the service's own), no trailing slash: links point there. */
  dashboardUrl: string;
  /** This process's claim holder id. */
  holder: string;
  /** A round that failed (the database): logged; its claims run out and the deliveries stay due. */
  onError: (error: unknown) => void;
}

export interface EmailWorker {
  /** Starts a round unless one runs, and returns at once (the background duty). */
  tick(): Promise<void>;
  /** Runs a round (after the one running, if any) and waits for it: how many mails were sent (tests). */
  sendDue(): Promise<number>;
  /** Starts nothing more; waits for the round that runs (a send cut short is sent again later). */
  stop(): Promise<void>;
}

type Outcome = 'sent' | 'retry' | 'failed' | 'dropped' | 'unreachable' | 'stopped';

export function createEmailWorker(deps: EmailDeps): EmailWorker {
  // Loaded here, not at start: a deployment without SMTP_URL never holds nodemailer (~15 MB resident).
  const { createTransport } = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
  const transport = createTransport({
    url: deps.smtp.url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    // Nothing a mail says is a file or a URL to fetch.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const stopping = new AbortController();
  let running: Promise<number> | null = null;

  function start(): Promise<number> {
    if (running === null) {
      running = sendRound(deps, transport, stopping.signal).finally(() => {
        running = null;
      });
    }
    return running;
  }

  return {
    async tick() {
      if (stopping.signal.aborted) return;
      start().catch(deps.onError);
    },
    async sendDue() {
      await running?.catch(() => undefined);
      return start();
    },
    async stop() {
      stopping.abort();
      await running?.catch(() => undefined);
      transport.close();
    },
  };
}

type Transport = ReturnType<typeof Nodemailer.createTransport>;

async function sendRound(deps: EmailDeps, transport: Transport, stopping: AbortSignal): Promise<number> {
  const { db } = deps.ctx.store;
  const nowMs = deps.ctx.clock.nowMs();
  const due = await db
    .selectFrom('email_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at_ms', '<=', BigInt(nowMs))
    .orderBy('next_attempt_at_ms', 'asc')
    .orderBy('id', 'asc')
    .limit(ROUND_READ_MAX)
    .execute();
  let sent = 0;
  for (const { id } of due) {
    if (stopping.aborted) break;
    if (!(await claim(deps, id))) continue;
    const outcome = await attempt(deps, transport, id, stopping);
    if (outcome === 'sent') sent += 1;
    if (outcome === 'unreachable' || outcome === 'stopped') break;
  }
  return sent;
}

/** Takes a due delivery for LEASE_MS: false when another instance took it first (or it is no longer due). */
async function claim(deps: EmailDeps, id: string): Promise<boolean> {
  const nowMs = deps.ctx.clock.nowMs();
  const taken = await deps.ctx.store.db
    .updateTable('email_deliveries')
    .set({
      lease_holder: deps.holder,
      next_attempt_at_ms: BigInt(nowMs + LEASE_MS),
      updated_at_ms: BigInt(nowMs),
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at_ms', '<=', BigInt(nowMs))
    .executeTakeFirst();
  return taken.numUpdatedRows === 1n;
}

/** A delivery with its event, the recipient's address, and their membership and choices now (if any). */
function readDelivery(deps: EmailDeps, id: string) {
  return deps.ctx.store.db
    .selectFrom('email_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .leftJoin('members as m', 'm.user_id', 'd.user_id')
    .leftJoin('organizations as o', 'o.id', 'm.organization_id')
    .leftJoin('email_preferences as p', 'p.user_id', 'd.user_id')
    .select([
      'd.attempts',
      'd.user_id',
      'd.created_at_ms',
      'e.type',
      'e.user_id as event_user_id',
      'e.data_json',
      'e.created_at_ms as event_created_at_ms',
      'u.email',
      'm.role',
      'o.scope_user_id',
      'p.off_json',
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();
}
type DeliveryRow = NonNullable<Awaited<ReturnType<typeof readDelivery>>>;

/** One claimed delivery: rendered, sent and recorded (nothing recorded when shutdown cut the send short). */
async function attempt(
  deps: EmailDeps,
  transport: Transport,
  id: string,
  stopping: AbortSignal,
): Promise<Outcome> {
  const row = await readDelivery(deps, id);
  if (row === undefined) return 'dropped';
  const data = JSON.parse(row.data_json) as unknown;
  const aboutRecipient = isAboutRecipient(row.type, data, row.user_id);
  if (!aboutRecipient && !memberReceives(row)) {
    await record(deps, id, {
      status: 'dropped',
      attempts: Number(row.attempts),
      error: droppedWhy(row.type),
    });
    return 'dropped';
  }
  const mail = renderMail({
    eventType: row.type,
    data,
    createdAtMs: Number(row.event_created_at_ms),
    publicUrl: deps.dashboardUrl,
    wallet: await walletOf(deps, row.event_user_id, data),
    aboutRecipient,
  });
  let failure: { error: string; permanent: boolean; unreachable: boolean } | null = null;
  try {
    await transport.sendMail({
      from: deps.smtp.from,
      to: row.email,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      signal: stopping,
    });
  } catch (error) {
    if (stopping.aborted) return 'stopped';
    failure = describeFailure(deps.smtp, error);
  }
  const attempts = Number(row.attempts) + 1;
  if (failure === null) {
    await record(deps, id, { status: 'sent', attempts, error: null });
    return 'sent';
  }
  const retryAtMs = deps.ctx.clock.nowMs() + backoffMs(attempts);
  const giveUp = failure.permanent || retryAtMs - Number(row.created_at_ms) > RETRY_WINDOW_MS;
  await record(deps, id, {
    status: giveUp ? 'failed' : 'pending',
    attempts,
    error: failure.error,
    ...(giveUp ? {} : { nextAttemptAtMs: retryAtMs }),
  });
  if (failure.unreachable) return 'unreachable';
  return giveUp ? 'failed' : 'retry';
}

/** Whether the recipient is still a member who receives this kind of the event's organization, now. */
function memberReceives(row: DeliveryRow): boolean {
  if (row.role === null || !isRole(row.role) || row.scope_user_id === null) return false;
  const member: MailMember = {
    userId: row.user_id,
    scopeUserId: row.scope_user_id,
    role: row.role,
    off: parseOffList(row.off_json),
  };
  return receivesMail(member, row.event_user_id, row.type);
}

function droppedWhy(type: string): string {
  const kind: EmailKind | null = emailKindOf(type);
  return `the member no longer receives ${kind ?? type} mail`;
}

/** The wallet an event's data names (`walletId`), of the event's organization only: its label and kind. */
async function walletOf(deps: EmailDeps, scopeUserId: string, data: unknown) {
  const walletId = (data as { walletId?: unknown } | null)?.walletId;
  if (typeof walletId !== 'string') return null;
  const wallet = await deps.ctx.store.db
    .selectFrom('wallets')
    .select(['label', 'kind'])
    .where('id', '=', walletId)
    .where('user_id', '=', scopeUserId)
    .executeTakeFirst();
  return wallet === undefined ? null : { label: wallet.label, kind: wallet.kind };
}

async function record(
  deps: EmailDeps,
  id: string,
  result: {
    status: 'sent' | 'pending' | 'failed' | 'dropped';
    attempts: number;
    error: string | null;
    nextAttemptAtMs?: number;
  },
): Promise<void> {
  const nowMs = deps.ctx.clock.nowMs();
  await deps.ctx.store.db
    .updateTable('email_deliveries')
    .set({
      status: result.status,
      attempts: BigInt(result.attempts),
      next_attempt_at_ms: result.nextAttemptAtMs === undefined ? null : BigInt(result.nextAttemptAtMs),
      lease_holder: null,
      last_error: result.error,
      updated_at_ms: BigInt(nowMs),
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** What is kept of a failed send: nodemailer's code and message, bounded, the SMTP password masked. */
function describeFailure(smtp: SmtpConfig, error: unknown) {
  const e = error as { code?: unknown; responseCode?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : 'ERROR';
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : null;
  let message = `${code}: ${typeof e.message === 'string' ? e.message : String(error)}`;
  if (smtp.password !== null && smtp.password.length >= 4) {
    message = message.replaceAll(smtp.password, '[redacted]');
  }
  return {
    error: message.slice(0, ERROR_LENGTH_MAX),
    // A 5xx answer about this mail (a rejected recipient) will not change; a refused login might be fixed.
    permanent: responseCode !== null && responseCode >= 500 && code !== 'EAUTH',
    unreachable: UNREACHABLE_CODES.has(code),
  };
}
