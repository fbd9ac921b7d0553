import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  createPolicy,
  EXTERNAL,
  expectToolError,
  policiesUrl,
  policyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

for (const target of await storeTargets()) {
  describe(`DELETE /agent-wallets/:walletId/policies/:policyId happy (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_delete_happy');
    });
    after(() => h.close());

    test('200 {id, deleted: true}; the policy is gone from the list and no longer checked', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const keep = await createPolicy(agent.user, agent.walletId, 'spend_cap_total', { limit: '50' });
      expectToolError(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '5' }),
        'send_payment',
        422,
        'POLICY_DENIED',
      );
      const reply = await agent.user.api.delete(policyUrl(agent.walletId, cap.id));
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, { success: true, data: { id: cap.id, deleted: true } });
      const list = await agent.user.api.get(policiesUrl(agent.walletId));
      assert.deepEqual(
        list.body.data.items.map((p: { id: string }) => p.id),
        [keep.id],
      );
      assert.equal(list.body.data.total, 1);
      const paid = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '5' }),
        'send_payment',
      );
      assert.equal(paid.status, 'completed');
    });

    test('deleting the only daily and total caps turns the remaining caps back to null', async () => {
      const agent = await agentWithKey(h);
      const daily = await createPolicy(agent.user, agent.walletId, 'spend_cap_daily', { limit: '10' });
      const total = await createPolicy(agent.user, agent.walletId, 'spend_cap_total', { limit: '20' });
      const before = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual([before.dailyCapRemaining, before.totalCapRemaining], ['10.000000', '20.000000']);
      assert.equal((await agent.user.api.delete(policyUrl(agent.walletId, daily.id))).status, 200);
      assert.equal((await agent.user.api.delete(policyUrl(agent.walletId, total.id))).status, 200);
      const after = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual([after.dailyCapRemaining, after.totalCapRemaining], [null, null]);
    });

    test('a paused policy can be deleted', async () => {
      const agent = await agentWithKey(h);
      const allow = await createPolicy(agent.user, agent.walletId, 'address_allowlist', {
        addresses: [EXTERNAL],
      });
      await agent.user.api.patch(policyUrl(agent.walletId, allow.id), { active: false });
      const reply = await agent.user.api.delete(policyUrl(agent.walletId, allow.id));
      assert.deepEqual(reply.body.data, { id: allow.id, deleted: true });
    });
  });
}
