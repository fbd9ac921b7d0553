// The members of an organization (contract section 9): listed, their role changed, removed. Member changes that
// could leave no owner lock the organization's row first, so two owners demoting each other at once cannot both
// succeed. A removal ends the member's sessions in its transaction, and the keys and OAuth connections they made
// unless the remover keeps them.
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { keepsAnOwner, type Role } from '../../domain/organizations/roles.ts';
import { invalidState, notFound } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { EventOutbox, ServiceContext } from '../context.ts';
import type { KeyService, MadeKey } from '../keys/keys.ts';
import { type RequestMeta, recordMemberEvent } from './security-events.ts';

/** Members of one organization are bounded (a list is one page). */
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

export function createMembers(ctx: ServiceContext, keys: KeyService) {
  const { store, writer, clock } = ctx;

  async function members(caller: Caller): Promise<MemberView[]> {
    const rows = await memberRows(store.db, caller.organizationId)
      .orderBy('members.joined_at_ms', 'asc')
      .orderBy('members.user_id', 'asc')
      .limit(MEMBERS_MAX)
      .execute();
    return rows.map(memberView);
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
      writer.run((trx) =>
        removeMember(
          trx,
          { caller, memberId, keepKeys: options.keepKeys, meta: options.meta, nowMs },
          keys,
          ctx.events,
        ),
      );
    // Ended keys must be refused by every instance's key cache before the answer: the keys' own broadcast.
    return options.keepKeys ? removal() : keys.changing(removal);
  }

  return { members, changeRole, remove };
}

/** The removal itself, under the organization's lock: the member, their sessions, and what they made ended or kept. */
async function removeMember(
  trx: Kysely<Database>,
  input: { caller: Caller; memberId: string; keepKeys: boolean; meta: RequestMeta; nowMs: number },
  keys: KeyService,
  outbox: EventOutbox,
): Promise<Removal> {
  const { caller, memberId, nowMs } = input;
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
  const result: Removal = input.keepKeys
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
      meta: input.meta,
      nowMs,
    },
    outbox,
  );
  return result;
}

/** The members of an organization with whether each has a second factor. */
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
function memberView(r: MemberRow): MemberView {
  return {
    id: r.user_id,
    email: r.email,
    role: r.role,
    joinedAt: isoFromMs(r.joined_at_ms),
    // SQLite answers exists() with 0/1, PostgreSQL with a boolean.
    mfa: Boolean(Number(r.has_totp)) || Boolean(Number(r.has_passkey)),
  };
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
