// What a member's role lets them do (contract section 9), decided here and nowhere else in the dashboard: a
// control the role may not use is not offered at all (the server refuses it anyway, 403 FORBIDDEN_ROLE). The
// roles nest like the server's (packages/server/src/domain/organizations/roles.ts): viewer reads, approver also approves and
// rejects held payments, admin also changes wallets, keys, policies and webhooks, owner also manages members,
// the organization and the master wallet's withdrawals and address book. Pure: unit-tested.
import type { MemberRole } from '@agent-wallet/sdk';

export type Role = MemberRole;
export const ROLES = ['owner', 'admin', 'approver', 'viewer'] as const satisfies readonly Role[];

const RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2, owner: 3 };

/**
 * Everything the dashboard offers that not every role may do, with the least role that may: checked against the
 * roles the server's routes declare by test/roles-routes.test.ts.
 */
const LEAST_ROLE = {
  /** Approve or reject a held payment. */
  decide: 'approver',
  /** Create an agent wallet. */
  createWallet: 'admin',
  /** Rename, freeze, unfreeze an agent wallet. */
  editWallet: 'admin',
  /** Fund an agent wallet from the master wallet, or take money back. */
  moveMoney: 'admin',
  /** Create, revoke and rotate API keys. */
  manageKeys: 'admin',
  /** Let an app (an agent host, by OAuth) use an agent wallet: the consent page's Allow. */
  connectApp: 'admin',
  /** Add, edit, pause and delete policies. */
  managePolicies: 'admin',
  /** Add, edit, delete webhook endpoints, rotate their secrets, redeliver. */
  manageWebhooks: 'admin',
  /** Add and delete alerts (a balance below an amount, spending reaching a share of a cap). */
  manageAlerts: 'admin',
  /** A simulated deposit into the master wallet (sandbox rail). */
  sandboxDeposit: 'admin',
  /** Withdraw from the master wallet. */
  withdrawMaster: 'owner',
  /** Add and remove withdrawal addresses. */
  manageAddressBook: 'owner',
  /** Invite, change roles, remove members; see and revoke invitations. */
  manageMembers: 'owner',
  /** The organization's settings (require a second factor of every member). */
  manageOrganization: 'owner',
  /** Sign what waits for the owners of a bounded treasury: a browser wallet holding an owner's key, or a passkey. */
  signTreasury: 'owner',
  /** Ask to revoke the service's allowance over the owners' account (they then sign the revocation). */
  revokeAllowance: 'owner',
  /** Ask to change the owners and threshold of a bounded treasury's multisig account (the owners then sign it). */
  changeTreasuryOwners: 'owner',
} as const satisfies Record<string, Role>;

export type Action = keyof typeof LEAST_ROLE;
export const ACTIONS = Object.keys(LEAST_ROLE) as Action[];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether `role` is `needed` or above it. */
export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/** The least role that may do `action`. */
export function leastRoleFor(action: Action): Role {
  return LEAST_ROLE[action];
}

/** Whether a member with `role` may do `action`; an unknown role (not loaded yet) may do nothing but read. */
export function can(role: Role | null | undefined, action: Action): boolean {
  if (role === null || role === undefined || !isRole(role)) return false;
  return roleAllows(role, LEAST_ROLE[action]);
}

/** The caller's role in `GET /organization`'s answer; none there (not loaded, or no such field) is no role. */
export function roleOf(user: { role?: unknown } | null | undefined): Role | null {
  if (user === null || user === undefined) return null;
  return isRole(user.role) ? user.role : null;
}

/** What each role may do, in a sentence (the invitation form, the members list). */
export const ROLE_WORDS: Record<Role, { name: string; does: string }> = {
  owner: { name: 'Owner', does: 'everything, including members, withdrawals and the address book' },
  admin: { name: 'Admin', does: 'wallets, keys, policies and webhooks; not members or withdrawals' },
  approver: { name: 'Approver', does: 'reads everything, approves and rejects held payments' },
  viewer: { name: 'Viewer', does: 'reads everything, changes nothing' },
};
