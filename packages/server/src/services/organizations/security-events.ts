// What happened to a member's guards (password changed, factor added or removed) and to the organization's
// membership (an owner or admin invited, a role changed, a member removed): a row the member sees in the
// dashboard, and a webhook event (and email) to the member's organization, naming the member — written in the
// same database transaction as the change, so neither is lost. Never a secret: the detail names what changed,
// not its value.
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { toldToTheMember } from '../../domain/email/mail.ts';
import { newId } from '../../domain/ids.ts';
import type { Database } from '../../store/schema.ts';
import { type Page, pageOf } from '../context.ts';
import { type EventOutbox, emitEvent } from '../webhooks/webhook-events.ts';

/** A membership change: every owner hears of it, and the member it is about of their own change or removal. */
export type MemberEventType =
  | 'security.member_invited'
  | 'security.member_role_changed'
  | 'security.member_removed';

export type SecurityEventType =
  | 'security.password_changed'
  | 'security.factor_added'
  | 'security.factor_removed'
  | MemberEventType;

/** Where a request came from: recorded with sessions and security events. */
export interface RequestMeta {
  ip: string;
  userAgent: string | null;
}

export interface SecurityEventView {
  id: string;
  type: SecurityEventType;
  detail: Record<string, string>;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
}

export async function recordSecurityEvent(
  trx: Kysely<Database>,
  event: {
    userId: string;
    type: SecurityEventType;
    detail: Record<string, string>;
    meta: RequestMeta;
    nowMs: number;
  },
  outbox: EventOutbox,
): Promise<void> {
  const view = await insertSecurityEvent(trx, event);
  // The organization hears of every member's guards (its owners get the webhook and the email), with who it was.
  const member = await trx
    .selectFrom('members')
    .innerJoin('organizations', 'organizations.id', 'members.organization_id')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select(['organizations.scope_user_id', 'users.email'])
    .where('members.user_id', '=', event.userId)
    .executeTakeFirst();
  const data = { ...view, member: { id: event.userId, email: member?.email ?? null } };
  await emitEvent(
    trx,
    { userId: member?.scope_user_id ?? event.userId, type: event.type, data: () => data, nowMs: event.nowMs },
    outbox,
  );
}

/** The row a member sees in their list; answers it as the list shows it. */
async function insertSecurityEvent(
  trx: Kysely<Database>,
  event: {
    userId: string;
    type: SecurityEventType;
    detail: Record<string, string>;
    meta: RequestMeta;
    nowMs: number;
  },
): Promise<SecurityEventView> {
  const view: SecurityEventView = {
    id: newId('sev'),
    type: event.type,
    detail: event.detail,
    ip: event.meta.ip,
    userAgent: event.meta.userAgent,
    createdAt: isoFromMs(event.nowMs),
  };
  await trx
    .insertInto('security_events')
    .values({
      id: view.id,
      user_id: event.userId,
      type: event.type,
      detail_json: JSON.stringify(event.detail),
      ip: view.ip,
      user_agent: view.userAgent,
      created_at_ms: BigInt(event.nowMs),
    })
    .execute();
  return view;
}

/**
 * A change to the organization's membership, in the change's transaction: a webhook event and email to the
 * organization (its owners), and — for a role change or a removal — email to the member it is about, at their own
 * address, whatever their role now; a removed member is told too. The row is listed to that member (to the inviter
 * for an invitation, which is about no login yet). `detail.by` names who did it.
 */
export async function recordMemberEvent(
  trx: Kysely<Database>,
  event: {
    type: MemberEventType;
    /** The user_id the organization's events carry (its founder's id). */
    scopeUserId: string;
    /** Whom it is about: a member, or for an invitation the invited email (no login: id null). */
    member: { id: string | null; email: string };
    actor: { id: string; email: string };
    detail: Record<string, string>;
    meta: RequestMeta;
    nowMs: number;
  },
  outbox: EventOutbox,
): Promise<void> {
  const view = await insertSecurityEvent(trx, {
    userId: event.member.id ?? event.actor.id,
    type: event.type,
    detail: { ...event.detail, by: event.actor.email },
    meta: event.meta,
    nowMs: event.nowMs,
  });
  const data = { ...view, member: event.member, by: event.actor };
  const told = event.member.id !== null && toldToTheMember(event.type) ? [event.member.id] : [];
  await emitEvent(
    trx,
    { userId: event.scopeUserId, type: event.type, data: () => data, nowMs: event.nowMs, mailAlso: told },
    outbox,
  );
}

export async function listSecurityEvents(db: Kysely<Database>, userId: string, page: Page) {
  const { rows, total } = await pageOf(db.selectFrom('security_events').where('user_id', '=', userId), page);
  const items: SecurityEventView[] = rows.map((r) => ({
    id: r.id,
    type: r.type as SecurityEventType,
    detail: JSON.parse(r.detail_json) as Record<string, string>,
    ip: r.ip,
    userAgent: r.user_agent,
    createdAt: isoFromMs(r.created_at_ms),
  }));
  return { items, total, page: page.page, limit: page.limit };
}
