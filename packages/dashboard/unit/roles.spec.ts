import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTIONS, can, isRole, leastRoleFor, ROLES, roleAllows, roleOf } from '../src/roles.ts';

describe('what a role may do', () => {
  it('viewers read only: no control that changes anything', () => {
    for (const action of ACTIONS) expect(can('viewer', action)).toBe(false);
  });

  it('approvers approve and reject, and nothing an admin does', () => {
    expect(can('approver', 'decide')).toBe(true);
    for (const action of [
      'createWallet',
      'editWallet',
      'moveMoney',
      'manageKeys',
      'managePolicies',
      'manageWebhooks',
      'manageAlerts',
      'sandboxDeposit',
    ] as const) {
      expect(can('approver', action)).toBe(false);
    }
  });

  it('admins change wallets, keys, policies and webhooks, not members, withdrawals or the address book', () => {
    for (const action of [
      'decide',
      'createWallet',
      'moveMoney',
      'manageKeys',
      'managePolicies',
      'manageAlerts',
    ] as const) {
      expect(can('admin', action)).toBe(true);
    }
    for (const action of [
      'manageMembers',
      'manageOrganization',
      'withdrawMaster',
      'manageAddressBook',
    ] as const) {
      expect(can('admin', action)).toBe(false);
    }
  });

  it('owners may do everything', () => {
    for (const action of ACTIONS) expect(can('owner', action)).toBe(true);
  });

  it('an unknown role (not loaded yet, or garbage) may do nothing', () => {
    for (const action of ACTIONS) {
      expect(can(null, action)).toBe(false);
      expect(can(undefined, action)).toBe(false);
      expect(can('root' as never, action)).toBe(false);
    }
  });

  it('roles nest like the server’s: whatever a role may do, every higher role may do too', () => {
    const role = fc.constantFrom(...ROLES);
    fc.assert(
      fc.property(role, role, fc.constantFrom(...ACTIONS), (a, b, action) => {
        if (roleAllows(a, b) && can(b, action)) expect(can(a, action)).toBe(true);
        expect(can(a, action)).toBe(roleAllows(a, leastRoleFor(action)));
      }),
    );
  });

  it('reads the caller’s role from GET /organization; none there is no role', () => {
    expect(roleOf({ role: 'approver' })).toBe('approver');
    expect(roleOf({})).toBeNull();
    expect(roleOf({ role: 'superuser' })).toBeNull();
    expect(roleOf(undefined)).toBeNull();
    expect(isRole('viewer')).toBe(true);
    expect(isRole('VIEWER')).toBe(false);
  });
});
