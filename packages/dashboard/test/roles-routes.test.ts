// The dashboard's least role per action (src/roles.ts) against the roles the server's routes declare: each
// action names the operations it calls, and each of them must ask exactly the action's role. A route whose role
// the server raises or lowers fails here, and so does a new route above viewer that no action offers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROUTE_TABLE } from '../../server/src/routes/index.ts';
import { ACTIONS, type Action, leastRoleFor } from '../src/roles.ts';

/** The operations (OpenAPI operationIds) each action of the dashboard calls. */
const OPERATIONS: Record<Action, readonly string[]> = {
  decide: ['approveTransaction', 'rejectTransaction'],
  createWallet: ['createAgentWallet'],
  editWallet: ['updateAgentWallet', 'freezeAgentWallet', 'unfreezeAgentWallet'],
  moveMoney: ['fundAgentWallet', 'withdrawAgentWallet'],
  manageKeys: ['createKey', 'revokeKey', 'rotateKey'],
  connectApp: ['oauthConsent'],
  managePolicies: ['createPolicy', 'updatePolicy', 'deletePolicy'],
  manageWebhooks: [
    'createWebhook',
    'updateWebhook',
    'deleteWebhook',
    'rotateWebhookSecret',
    'redeliverWebhook',
  ],
  manageAlerts: ['createAlert', 'deleteAlert'],
  sandboxDeposit: ['sandboxDeposit'],
  withdrawMaster: ['withdrawMaster'],
  manageAddressBook: ['addWithdrawalAddress', 'removeWithdrawalAddress'],
  manageMembers: ['inviteMember', 'updateMember', 'removeMember', 'revokeInvitation', 'listInvitations'],
  manageOrganization: ['updateOrganization'],
  signTreasury: ['treasurySignatures', 'treasuryPasskeyOptions'],
  revokeAllowance: ['treasuryRevoke'],
  changeTreasuryOwners: ['treasuryOwners'],
};

const declaredRole = (operationId: string): string | undefined =>
  (ROUTE_TABLE as Record<string, { role?: string }>)[operationId]?.role;

test('each action asks the least role the server declares for every operation it calls', () => {
  assert.deepEqual(Object.keys(OPERATIONS).sort(), [...ACTIONS].sort());
  for (const action of ACTIONS) {
    for (const operationId of OPERATIONS[action]) {
      assert.equal(
        declaredRole(operationId),
        leastRoleFor(action),
        `${action} calls ${operationId}, which the server allows from ${declaredRole(operationId)}`,
      );
    }
  }
});

/**
 * Routes above viewer the dashboard does not offer yet, and why: each is a gap of the dashboard, not of the server
 * (which enforces the role either way).
 */
const NOT_OFFERED: Record<string, string> = {};

test('every session route above viewer is an action of the dashboard', () => {
  const offered = new Set([...Object.values(OPERATIONS).flat(), ...Object.keys(NOT_OFFERED)]);
  const raised = Object.entries(ROUTE_TABLE as Record<string, { role?: string }>)
    .filter(([, route]) => route.role !== undefined && route.role !== 'viewer')
    .map(([operationId]) => operationId);
  assert.ok(raised.length > 20, `only ${raised.length} routes above viewer: the table was not read`);
  assert.deepEqual(
    raised.filter((operationId) => !offered.has(operationId)),
    [],
    'routes whose role the dashboard does not reflect',
  );
});
