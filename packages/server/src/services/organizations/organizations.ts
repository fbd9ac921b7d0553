// Organizations (contract section 9): the members of one account, their roles, invitations and the
// organization's own settings. The organization's resources carry its founder's id (organizations.scope_user_id)
// in their user_id column, so every other service scopes by `tenantId` exactly as it scoped by the user before.
// Assembled here from the members (members.ts) and the invitations (invitations.ts).
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/organizations/roles.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import type { KeyService } from '../keys/keys.ts';
import { createInvitations, type InvitationView } from './invitations.ts';
import { type Caller, createMembers, type MemberView, type Removal } from './members.ts';
import type { RequestMeta } from './security-events.ts';

export {
  acceptInvitation,
  INVITATION_TTL_MS,
  INVITATIONS_OPEN_MAX,
  type InvitationView,
} from './invitations.ts';
export { type Caller, MEMBERS_MAX, type MemberView, type Removal } from './members.ts';

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

export function createOrganizationService(ctx: ServiceContext, keys: KeyService): OrganizationService {
  const { store } = ctx;

  async function update(caller: Caller, change: { requireMfa: boolean }) {
    await store.db
      .updateTable('organizations')
      .set({ require_mfa: change.requireMfa ? 1n : 0n })
      .where('id', '=', caller.organizationId)
      .execute();
    return organizationView(store.db, caller);
  }

  return {
    get: (caller) => organizationView(store.db, caller),
    update,
    ...createMembers(ctx, keys),
    ...createInvitations(ctx),
  };
}

async function organizationView(db: Kysely<Database>, caller: Caller): Promise<OrganizationView> {
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
