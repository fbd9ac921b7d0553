// Invitations to an organization (contract section 9): made by an owner with a role, listed while open, revoked,
// and accepted by a signup with the invitation's token (single use, for that email only).
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { secretDigest } from '../../domain/identity/second-factor.ts';
import { newId, randomBase62 } from '../../domain/ids.ts';
import type { Role } from '../../domain/organizations/roles.ts';
import { AppError, invalidState, notFound } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { EventOutbox, ServiceContext } from '../context.ts';
import type { Caller } from './members.ts';
import { type RequestMeta, recordMemberEvent } from './security-events.ts';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Open invitations of one organization are bounded (a list is one page). */
export const INVITATIONS_OPEN_MAX = 100;

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

/**
 * A signup with an invitation joins its organization with its role, in the signup's transaction: the token
 * must be live and its email the signup's. Marked accepted in the same statement that checks it (single use).
 */
export async function acceptInvitation(
  trx: Kysely<Database>,
  invite: { userId: string; email: string; token: string; nowMs: number },
): Promise<void> {
  const digest = secretDigest(invite.token);
  const row = await trx
    .selectFrom('invitations')
    .select(['id', 'organization_id', 'email', 'role'])
    .where('token_digest', '=', digest)
    .where('accepted_at_ms', 'is', null)
    .where('revoked_at_ms', 'is', null)
    .where('expires_at_ms', '>', BigInt(invite.nowMs))
    .executeTakeFirst();
  if (row === undefined || row.email !== invite.email) {
    throw new AppError(
      'VALIDATION_ERROR',
      'invitationToken: unknown, used, revoked or expired, or issued for another email',
    );
  }
  const claimed = await trx
    .updateTable('invitations')
    .set({ accepted_at_ms: BigInt(invite.nowMs) })
    .where('id', '=', row.id)
    .where('accepted_at_ms', 'is', null)
    .executeTakeFirst();
  if (claimed.numUpdatedRows !== 1n) throw new AppError('VALIDATION_ERROR', 'invitationToken: already used');
  await trx
    .insertInto('members')
    .values({
      user_id: invite.userId,
      organization_id: row.organization_id,
      role: row.role,
      joined_at_ms: BigInt(invite.nowMs),
    })
    .execute();
}

export function createInvitations(ctx: ServiceContext) {
  const { store, writer, clock } = ctx;

  async function invite(caller: Caller, invitation: { email: string; role: Role }, meta: RequestMeta) {
    const nowMs = clock.nowMs();
    const token = `inv_${randomBase62(40)}`;
    const id = newId('inv');
    const expiresAtMs = nowMs + INVITATION_TTL_MS;
    // Whether the email already has a login is not looked at: the answer (and the work behind it) is the same
    // for every address, so an invitation tells the inviter nothing about who has an account. An address with a
    // login meets EMAIL_TAKEN when it signs up with the token: the person learns it, not the inviter.
    await writer.run((trx) =>
      insertInvitation(
        trx,
        { id, caller, invitation, tokenDigest: secretDigest(token), meta, nowMs, expiresAtMs },
        ctx.events,
      ),
    );
    return {
      id,
      email: invitation.email,
      role: invitation.role,
      token,
      expiresAt: isoFromMs(expiresAtMs),
      createdAt: isoFromMs(nowMs),
    };
  }

  async function invitations(caller: Caller): Promise<InvitationView[]> {
    const rows = await openInvitations(store.db, caller.organizationId, clock.nowMs())
      .select(['id', 'email', 'role', 'expires_at_ms', 'created_at_ms'])
      .orderBy('created_at_ms', 'desc')
      .orderBy('id', 'desc')
      .limit(INVITATIONS_OPEN_MAX)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      email: r.email,
      role: r.role,
      expiresAt: isoFromMs(r.expires_at_ms),
      createdAt: isoFromMs(r.created_at_ms),
    }));
  }

  async function revokeInvitation(caller: Caller, invitationId: string): Promise<void> {
    const result = await store.db
      .updateTable('invitations')
      .set({ revoked_at_ms: BigInt(clock.nowMs()) })
      .where('id', '=', invitationId)
      .where('organization_id', '=', caller.organizationId)
      .where('accepted_at_ms', 'is', null)
      .where('revoked_at_ms', 'is', null)
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) throw notFound('invitation');
  }

  return { invite, invitations, revokeInvitation };
}

/** An invitation, in its transaction: within the open bound, and told to the owners when it is for owner or admin. */
async function insertInvitation(
  trx: Kysely<Database>,
  input: {
    id: string;
    caller: Caller;
    invitation: { email: string; role: Role };
    tokenDigest: string;
    meta: RequestMeta;
    nowMs: number;
    expiresAtMs: number;
  },
  outbox: EventOutbox,
): Promise<void> {
  const open = await openInvitations(trx, input.caller.organizationId, input.nowMs)
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(open.n) >= INVITATIONS_OPEN_MAX)
    throw invalidState(`an organization has at most ${INVITATIONS_OPEN_MAX} open invitations`);
  await trx
    .insertInto('invitations')
    .values({
      id: input.id,
      organization_id: input.caller.organizationId,
      email: input.invitation.email,
      role: input.invitation.role,
      token_digest: input.tokenDigest,
      invited_by: input.caller.userId,
      created_at_ms: BigInt(input.nowMs),
      expires_at_ms: BigInt(input.expiresAtMs),
      accepted_at_ms: null,
      revoked_at_ms: null,
    })
    .execute();
  // Whoever joins as owner or admin can take control: the owners hear of it while it can still be revoked.
  if (input.invitation.role === 'owner' || input.invitation.role === 'admin') {
    await recordMemberEvent(
      trx,
      {
        type: 'security.member_invited',
        scopeUserId: input.caller.tenantId,
        member: { id: null, email: input.invitation.email },
        actor: { id: input.caller.userId, email: input.caller.email },
        detail: { invitationId: input.id, email: input.invitation.email, role: input.invitation.role },
        meta: input.meta,
        nowMs: input.nowMs,
      },
      outbox,
    );
  }
}

function openInvitations(db: Kysely<Database>, organizationId: string, nowMs: number) {
  return db
    .selectFrom('invitations')
    .where('organization_id', '=', organizationId)
    .where('accepted_at_ms', 'is', null)
    .where('revoked_at_ms', 'is', null)
    .where('expires_at_ms', '>', BigInt(nowMs));
}
