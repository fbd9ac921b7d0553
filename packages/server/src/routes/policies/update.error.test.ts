import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  breakChecksum,
  createPolicy,
  EXTERNAL,
  policyUrl,
} from '../../../test/support/agent.ts';
import { eip55, expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`PATCH /agent-wallets/:walletId/policies/:policyId error (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_update_error');
    });
    after(() => h.close());

    test('params of the wrong shape for the policy type are a 400 naming the field', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '10' });
      const allow = await createPolicy(agent.user, agent.walletId, 'address_allowlist', {
        addresses: [EXTERNAL],
      });
      const approval = await createPolicy(agent.user, agent.walletId, 'require_approval_above', {
        amount: '5',
      });
      const state = await agentState(h);
      const cases: Array<[string, unknown, string]> = [
        [cap.id, { amount: '5' }, 'params.amount'],
        [cap.id, { addresses: [EXTERNAL] }, 'params.addresses'],
        [cap.id, { limit: '5', extra: 1 }, 'params.extra'],
        [allow.id, { limit: '5' }, 'params.limit'],
        [approval.id, { limit: '5' }, 'params.limit'],
        [cap.id, {}, 'params.limit'],
        [allow.id, {}, 'params.addresses'],
      ];
      for (const [id, params, field] of cases) {
        expectValidation(await agent.user.api.patch(policyUrl(agent.walletId, id), { params }), field);
      }
      await assertAgentStateUnchanged(h, state, 'mismatched params');
    });

    test('bad values: limit, amount, addresses, params not an object, active not a boolean', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_daily', { limit: '10' });
      const allow = await createPolicy(agent.user, agent.walletId, 'address_allowlist', {
        addresses: [EXTERNAL],
      });
      const approval = await createPolicy(agent.user, agent.walletId, 'require_approval_above', {
        amount: '5',
      });
      const state = await agentState(h);
      const cases: Array<[string, unknown, string]> = [
        [cap.id, { params: { limit: 'abc' } }, 'params.limit'],
        [cap.id, { params: { limit: '-1' } }, 'params.limit'],
        [cap.id, { params: { limit: '0' } }, 'params.limit'],
        [cap.id, { params: { limit: '1.0000001' } }, 'params.limit'],
        [cap.id, { params: { limit: 5 } }, 'params.limit'],
        [approval.id, { params: { amount: '1e3' } }, 'params.amount'],
        [allow.id, { params: { addresses: [] } }, 'params.addresses'],
        [allow.id, { params: { addresses: ['0x12'] } }, 'params.addresses'],
        [allow.id, { params: { addresses: [breakChecksum(eip55(EXTERNAL))] } }, 'params.addresses'],
        [cap.id, { params: null }, 'params'],
        [cap.id, { params: '5' }, 'params'],
        [cap.id, { active: 'false' }, 'active'],
        [cap.id, { active: 0 }, 'active'],
        [cap.id, { active: null }, 'active'],
      ];
      for (const [id, body, field] of cases) {
        expectValidation(await agent.user.api.patch(policyUrl(agent.walletId, id), body), field);
      }
      await assertAgentStateUnchanged(h, state, 'bad values');
    });

    test('the type, the wallet or any other field cannot be changed: 400', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '10' });
      const state = await agentState(h);
      for (const [field, value] of Object.entries({
        type: 'spend_cap_daily',
        walletId: 'wal_other',
        id: 'pol_other',
        createdAt: '2000-01-01T00:00:00.000Z',
        limit: '5',
      })) {
        expectValidation(
          await agent.user.api.patch(policyUrl(agent.walletId, cap.id), { [field]: value }),
          field,
        );
      }
      expectError(
        await agent.user.api.patch(policyUrl(agent.walletId, cap.id), '[]'),
        400,
        'VALIDATION_ERROR',
      );
      await assertAgentStateUnchanged(h, state, 'an unknown field');
    });

    test('unknown ids are a 404 NOT_FOUND, also a policy addressed through another of the user’s wallets', async () => {
      const agent = await agentWithKey(h);
      const other = await addAgentWallet(agent.user);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '10' });
      const state = await agentState(h);
      const body = { active: false };
      expectError(await agent.user.api.patch(policyUrl(agent.walletId, 'pol_nope'), body), 404, 'NOT_FOUND');
      expectError(await agent.user.api.patch(policyUrl('wal_nope', cap.id), body), 404, 'NOT_FOUND');
      expectError(await agent.user.api.patch(policyUrl(other.id, cap.id), body), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, 'an unknown id');
    });
  });
}
