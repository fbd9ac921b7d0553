import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  createPolicy,
  policyUrl,
} from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`DELETE /agent-wallets/:walletId/policies/:policyId error (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_delete_error');
    });
    after(() => h.close());

    test('an unknown policy or wallet is a 404 NOT_FOUND and deletes nothing', async () => {
      const agent = await agentWithKey(h);
      const other = await addAgentWallet(agent.user);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const state = await agentState(h);
      expectError(await agent.user.api.delete(policyUrl(agent.walletId, 'pol_nope')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.delete(policyUrl('wal_nope', cap.id)), 404, 'NOT_FOUND');
      expectError(await agent.user.api.delete(policyUrl(other.id, cap.id)), 404, 'NOT_FOUND');
      expectValidation(await agent.user.api.delete(policyUrl(agent.walletId, 'p'.repeat(65))), 'policyId');
      await assertAgentStateUnchanged(h, state, 'an unknown id');
    });

    test('deleting twice: the second is a 404 NOT_FOUND', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const first = await agent.user.api.delete(policyUrl(agent.walletId, cap.id));
      if (first.status !== 200) throw new Error(first.raw);
      expectError(await agent.user.api.delete(policyUrl(agent.walletId, cap.id)), 404, 'NOT_FOUND');
      expectError(
        await agent.user.api.patch(policyUrl(agent.walletId, cap.id), { active: true }),
        404,
        'NOT_FOUND',
      );
    });
  });
}
