import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  createPolicy,
  EXTERNAL,
  expectToolError,
  policyUrl,
  tool,
} from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`DELETE /agent-wallets/:walletId/policies/:policyId security (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_delete_security');
    });
    after(() => h.close());

    // Issue 10, defect 7: the body was ignored ({"balance":"1"}, [], 10,000-deep nesting all deleted).
    test('a body with any field, an array or a deep nesting is a 400 and deletes nothing', async () => {
      const owner = await agentWithKey(h);
      const cap = await createPolicy(owner.user, owner.walletId, 'spend_cap_per_tx', { limit: '1' });
      const url = policyUrl(owner.walletId, cap.id);
      const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
      for (const body of ['{"balance":"1"}', '[]', deep, 'null', '"x"']) {
        const reply = await call(h.app, 'DELETE', url, body, { token: owner.user.token });
        expectError(reply, 400, 'VALIDATION_ERROR');
        assert.match(reply.body.error.message, /takes no body fields/);
      }
      const listed = await owner.user.api.get(`/api/v1/agent-wallets/${owner.walletId}/policies`);
      assert.equal(listed.body.data.total, 1, 'the policy is still there');
      const empty = await call(h.app, 'DELETE', url, '{}', { token: owner.user.token });
      assert.equal(empty.status, 200, empty.raw);
    });

    test("another user's policy is a 404 NOT_FOUND and stays in force", async () => {
      const victim = await agentWithKey(h);
      const cap = await createPolicy(victim.user, victim.walletId, 'spend_cap_per_tx', { limit: '1' });
      const intruder = await agentWithKey(h);
      const state = await agentState(h);
      expectError(await intruder.user.api.delete(policyUrl(victim.walletId, cap.id)), 404, 'NOT_FOUND');
      expectError(await intruder.user.api.delete(policyUrl(intruder.walletId, cap.id)), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, "deleting another user's policy");
      expectToolError(
        await tool(h, victim.key, 'send_payment', { toAddress: EXTERNAL, amount: '2' }),
        'send_payment',
        422,
        'POLICY_DENIED',
      );
    });

    test('an agent cannot delete its own policy: an API key is a 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const state = await agentState(h);
      const reply = await call(h.app, 'DELETE', policyUrl(agent.walletId, cap.id), undefined, {
        token: agent.key,
      });
      expectError(reply, 401, 'UNAUTHORIZED');
      await assertAgentStateUnchanged(h, state, 'a deletion with an API key');
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'DELETE',
        policyUrl(agent.walletId, cap.id),
      );
      const list = await agent.user.api.get(`/api/v1/agent-wallets/${agent.walletId}/policies`);
      assert.equal(list.body.data.total, 1);
    });
  });
}
