// Organizations (contract section 9): the members of one account, their roles, invitations and the
// organization's own settings. The organization's resources carry its founder's id (organizations.scope_user_id)
// in their user_id column, so every other service scopes by `tenantId` exactly as it scoped by the user before.
// Member changes that could leave no owner lock the organization's row first, so two owners demoting each
// other at once cannot both succeed.
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { secretDigest } from '../../domain/identity/second-factor.ts';
import { newId, randomBase62 } from '../../domain/ids.ts';
import { keepsAnOwner, type Role } from '../../domain/organizations/roles.ts';
import { AppError, invalidState, notFound } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import type { KeyService, MadeKey } from '../keys/keys.ts';
import { type RequestMeta, recordMemberEvent } from './security-events.ts';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Open invitations and members of one organization are bounded (a list is one page). */
export const INVITATIONS_OPEN_MAX = 100;
export const MEMBERS_MAX = 200;

/** Who is asking: the member, the organization the session belongs to and their role in it. */
export interface Caller {
  userId: string;
  /** Their email: membership events name who made the change. */
  email: string;
  organizationId: string;
  /** The organization's resources' user_id (its founder's id). */
  tenantId: string;
  role: Role;
}

/** A removal: who left, and the keys and OAuth connections they made, ended or kept as the remover chose. */
export interface Removal {
  member: MemberView;
  /** Ended: refused from the answer on, on every instance. Empty when the remover kept them. */
  ended: MadeKey[];
  /** Kept working, by the remover's choice (`keepKeys`). Empty otherwise. */
  kept: MadeKey[];
}

export interface MemberView {
  id: string;
  email: string;
  role: Role;
  joinedAt: string;
  mfa: boolean;
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

export interface OrganizationView {
  id: string;
  requireMfa: boolean;
  createdAt: string;
  /** The caller's role in it: what a page may offer them. */
  role: Role;
}

/** A new login's own one-person organization, in the signup's transaction. */
export async function foundOrganization(trx: Kysely<Database>, userId: string, nowMs: number): Promise<void> {
  const organizationId = newId('org');
  await trx
    .insertInto('organizations')
    .values({ id: organizationId, scope_user_id: userId, require_mfa: 0n, created_at_ms: BigInt(nowMs) })
    .execute();
  await trx
    .insertInto('members')
    .values({ user_id: userId, organization_id: organizationId, role: 'owner', joined_at_ms: BigInt(nowMs) })
    .execute();
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

export interface OrganizationService {
  get(caller: Caller): Promise<OrganizationView>;
  update(caller: Caller, change: { requireMfa: boolean }): Promise<OrganizationView>;
  members(caller: Caller): Promise<MemberView[]>;
  /** Every owner, and the member, hear of an actual change (security.member_role_changed). */
  changeRole(
    caller: Caller,
    memberId: string,
    role: Role,
    meta: RequestMeta,
  ): Promise<{ before: Role; member: MemberView }>;
  /**
   * Removes the member; their sessions end in the same transaction, so at once on every instance, and so do the
   * API keys and OAuth connections they made unless `keepKeys`. Every owner, and the member, hear of it
   * (security.member_removed).
   */
  remove(
    caller: Caller,
    memberId: string,
    options: { keepKeys: boolean; meta: RequestMeta },
  ): Promise<Removal>;
  /** Every owner hears of an invitation as owner or admin (security.member_invited). */
  invite(
    caller: Caller,
    invitation: { email: string; role: Role },
    meta: RequestMeta,
  ): Promise<InvitationView & { token: string }>;
  invitations(caller: Caller): Promise<InvitationView[]>;
  revokeInvitation(caller: Caller, invitationId: string): Promise<void>;
}

/** How many keys and connections a removal ended or kept, as a security event's detail (strings). */
function madeCounts(removal: Removal): Record<string, string> {
  const count = (made: readonly MadeKey[], type: MadeKey['type']) =>
    String(made.filter((k) => k.type === type).length);
  return {
    revokedKeys: count(removal.ended, 'api_key'),
    revokedOAuth: count(removal.ended, 'oauth'),
    keptKeys: count(removal.kept, 'api_key'),
    keptOAuth: count(removal.kept, 'oauth'),
  };
}

export function createOrganizationService(ctx: ServiceContext, keys: KeyService): OrganizationService {
  const { store, writer, clock } = ctx;

  async function organization(db: Kysely<Database>, caller: Caller): Promise<OrganizationView> {
    const row = await db
      .selectFrom('organizations')
      .select(['id', 'require_mfa', 'created_at_ms'])
      .where('id', '=', caller.organizationId)
      .executeTakeFirstOrThrow();
    return {
      id: row.id,
      requireMfa: row.require_mfa === 1n,
      createdAt: isoFromMs(row.created_at_ms),
      role: caller.role,
    };
  }

  function memberRows(db: Kysely<Database>, organizationId: string) {
    return db
      .selectFrom('members')
      .innerJoin('users', 'users.id', 'members.user_id')
      .select((eb) => [
        'members.user_id',
        'members.role',
        'members.joined_at_ms',
        'users.email',
        eb
          .exists(
            eb
              .selectFrom('totp_factors')
              .select('totp_factors.user_id')
              .whereRef('totp_factors.user_id', '=', 'members.user_id')
              .where('totp_factors.confirmed_at_ms', 'is not', null),
          )
          .as('has_totp'),
        eb
          .exists(
            eb
              .selectFrom('passkeys')
              .select('passkeys.id')
              .whereRef('passkeys.user_id', '=', 'members.user_id'),
          )
          .as('has_passkey'),
      ])
      .where('members.organization_id', '=', organizationId);
  }

  type MemberRow = Awaited<ReturnType<ReturnType<typeof memberRows>['executeTakeFirstOrThrow']>>;
  const memberView = (r: MemberRow): MemberView => ({
    id: r.user_id,
    email: r.email,
    role: r.role,
    joinedAt: isoFromMs(r.joined_at_ms),
    // SQLite answers exists() with 0/1, PostgreSQL with a boolean.
    mfa: Boolean(Number(r.has_totp)) || Boolean(Number(r.has_passkey)),
  });

  async function members(caller: Caller): Promise<MemberView[]> {
    const rows = await memberRows(store.db, caller.organizationId)
      .orderBy('members.joined_at_ms', 'asc')
      .orderBy('members.user_id', 'asc')
      .limit(MEMBERS_MAX)
      .execute();
    return rows.map(memberView);
  }

  /** Locks the organization (its row), then reads the target and the owner count under that lock. */
  async function lockedMember(trx: Kysely<Database>, caller: Caller, memberId: string) {
    await trx
      .updateTable('organizations')
      .set((eb) => ({ created_at_ms: eb.ref('created_at_ms') }))
      .where('id', '=', caller.organizationId)
      .execute();
    const target = await memberRows(trx, caller.organizationId)
      .where('members.user_id', '=', memberId)
      .executeTakeFirst();
    if (target === undefined) throw notFound('member');
    const owners = await trx
      .selectFrom('members')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('organization_id', '=', caller.organizationId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    return { target, owners: Number(owners.n) };
  }

  async function changeRole(caller: Caller, memberId: string, role: Role, meta: RequestMeta) {
    return writer.run(async (trx) => {
      const { target, owners } = await lockedMember(trx, caller, memberId);
      if (!keepsAnOwner(owners, target.role, role))
        throw invalidState('the last owner cannot be demoted: make another member owner first');
      await trx.updateTable('members').set({ role }).where('user_id', '=', memberId).execute();
      if (target.role !== role) {
        await recordMemberEvent(
          trx,
          {
            type: 'security.member_role_changed',
            scopeUserId: caller.tenantId,
            member: { id: memberId, email: target.email },
            actor: { id: caller.userId, email: caller.email },
            detail: { from: target.role, to: role },
            meta,
            nowMs: clock.nowMs(),
          },
          ctx.events,
        );
      }
      return { before: target.role, member: memberView({ ...target, role }) };
    });
  }

  async function remove(
    caller: Caller,
    memberId: string,
    options: { keepKeys: boolean; meta: RequestMeta },
  ): Promise<Removal> {
    const nowMs = clock.nowMs();
    const removal = () =>
      writer.run(async (trx): Promise<Removal> => {
        const { target, owners } = await lockedMember(trx, caller, memberId);
        if (!keepsAnOwner(owners, target.role, null))
          throw invalidState('the last owner cannot be removed: make another member owner first');
        await trx.deleteFrom('members').where('user_id', '=', memberId).execute();
        await trx
          .updateTable('sessions')
          .set({ revoked_at_ms: BigInt(nowMs) })
          .where('user_id', '=', memberId)
          .where('revoked_at_ms', 'is', null)
          .execute();
        // What they made keeps acting after they leave only when the remover says so.
        const result: Removal = options.keepKeys
          ? {
              member: memberView(target),
              ended: [],
              kept: await keys.madeBy(trx, caller.tenantId, memberId, nowMs),
            }
          : {
              member: memberView(target),
              ended: await keys.endMadeBy(trx, caller.tenantId, memberId, nowMs),
              kept: [],
            };
        await recordMemberEvent(
          trx,
          {
            type: 'security.member_removed',
            scopeUserId: caller.tenantId,
            member: { id: memberId, email: target.email },
            actor: { id: caller.userId, email: caller.email },
            detail: { role: target.role, ...madeCounts(result) },
            meta: options.meta,
            nowMs,
          },
          ctx.events,
        );
        return result;
      });
    // Ended keys must be refused by every instance's key cache before the answer: the keys' own broadcast.
    return options.keepKeys ? removal() : keys.changing(removal);
  }

  async function invite(caller: Caller, invitation: { email: string; role: Role }, meta: RequestMeta) {
    const nowMs = clock.nowMs();
    const token = `inv_${randomBase62(40)}`;
    const id = newId('inv');
    const expiresAtMs = nowMs + INVITATION_TTL_MS;
    // Whether the email already has a login is not looked at: the answer (and the work behind it) is the same
    // for every address, so an invitation tells the inviter nothing about who has an account. An address with a
    // login meets EMAIL_TAKEN when it signs up with the token: the person learns it, not the inviter.
    await writer.run(async (trx) => {
      const open = await openInvitations(trx, caller.organizationId, nowMs)
        .select((eb) => eb.fn.countAll<bigint>().as('n'))
        .executeTakeFirstOrThrow();
      if (Number(open.n) >= INVITATIONS_OPEN_MAX)
        throw invalidState(`an organization has at most ${INVITATIONS_OPEN_MAX} open invitations`);
      await trx
        .insertInto('invitations')
        .values({
          id,
          organization_id: caller.organizationId,
          email: invitation.email,
          role: invitation.role,
          token_digest: secretDigest(token),
          invited_by: caller.userId,
          created_at_ms: BigInt(nowMs),
          expires_at_ms: BigInt(expiresAtMs),
          accepted_at_ms: null,
          revoked_at_ms: null,
        })
        .execute();
      // Whoever joins as owner or admin can take control: the owners hear of it while it can still be revoked.
      if (invitation.role === 'owner' || invitation.role === 'admin') {
        await recordMemberEvent(
          trx,
          {
            type: 'security.member_invited',
            scopeUserId: caller.tenantId,
            member: { id: null, email: invitation.email },
            actor: { id: caller.userId, email: caller.email },
            detail: { invitationId: id, email: invitation.email, role: invitation.role },
            meta,
            nowMs,
          },
          ctx.events,
        );
      }
    });
    return {
      id,
      email: invitation.email,
      role: invitation.role,
      token,
      expiresAt: isoFromMs(expiresAtMs),
      createdAt: isoFromMs(nowMs),
    };
  }

  function openInvitations(db: Kysely<Database>, organizationId: string, nowMs: number) {
    return db
      .selectFrom('invitations')
      .where('organization_id', '=', organizationId)
      .where('accepted_at_ms', 'is', null)
      .where('revoked_at_ms', 'is', null)
      .where('expires_at_ms', '>', BigInt(nowMs));
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

  async function update(caller: Caller, change: { requireMfa: boolean }) {
    await store.db
      .updateTable('organizations')
      .set({ require_mfa: change.requireMfa ? 1n : 0n })
      .where('id', '=', caller.organizationId)
      .execute();
    return organization(store.db, caller);
  }

  return {
    get: (caller) => organization(store.db, caller),
    update,
    members,
    changeRole,
    remove,
    invite,
    invitations,
    revokeInvitation,
  };
}
