// Roles of an organization's members (contract section 9), decided here and nowhere else. They nest: each role
// can do all that the one below it can — viewer reads, approver also approves and rejects held payments, admin
// also changes wallets, keys, policies and webhooks, owner also manages members, the organization and the
// master wallet's withdrawals and address book.

export const ROLES = ['owner', 'admin', 'approver', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2, owner: 3 };

/** Whether a member with `role` may use a route that needs `needed`. */
export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/** The roles that may use a route needing `needed`, highest first (the roles table of docs/owners/organizations.md). */
export function rolesAllowed(needed: Role): Role[] {
  return ROLES.filter((role) => roleAllows(role, needed));
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * Whether a change to the members leaves the organization an owner. `owners` counts the owners now; a change
 * takes `target` (its role now) to `next` (null: removed). The last owner can be neither removed nor demoted.
 */
export function keepsAnOwner(owners: number, target: Role, next: Role | null): boolean {
  if (target !== 'owner' || next === 'owner') return true;
  return owners > 1;
}
