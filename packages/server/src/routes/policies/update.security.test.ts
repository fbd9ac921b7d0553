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
  describe(`PATCH /agent-wallets/:walletId/policies/:policyId security (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_update_security');
    });
    after(() => h.close());

    test("another user's policy is a 404 NOT_FOUND and stays in force", async () => {
      const victim = await agentWithKey(h);
      const cap = await createPolicy(victim.user, victim.walletId, 'spend_cap_per_tx', { limit: '1' });
      const intruder = await agentWithKey(h);
      const state = await agentState(h);
      for (const walletId of [victim.walletId, intruder.walletId]) {
        for (const body of [{ active: false }, { params: { limit: '1000' } }]) {
          expectError(await intruder.user.api.patch(policyUrl(walletId, cap.id), body), 404, 'NOT_FOUND');
        }
      }
      await assertAgentStateUnchanged(h, state, "changing another user's policy");
      expectToolError(
        await tool(h, victim.key, 'send_payment', { toAddress: EXTERNAL, amount: '2' }),
        'send_payment',
        422,
        'POLICY_DENIED',
      );
    });

    test('an agent cannot pause or loosen its own policy: an API key is a 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const state = await agentState(h);
      for (const body of [{ active: false }, { params: { limit: '1000' } }]) {
        const reply = await call(h.app, 'PATCH', policyUrl(agent.walletId, cap.id), body, {
          token: agent.key,
        });
        expectError(reply, 401, 'UNAUTHORIZED');
      }
      await assertAgentStateUnchanged(h, state, 'a change with an API key');
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'PATCH',
        policyUrl(agent.walletId, cap.id),
        { active: false },
      );
      const denied = await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '2' });
      expectToolError(denied, 'send_payment', 422, 'POLICY_DENIED');
      assert.equal(denied.body.error.violations[0].policyId, cap.id);
    });
  });
}
