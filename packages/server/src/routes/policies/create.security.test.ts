import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  createKey,
  EXTERNAL,
  policiesUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

const CAP = { type: 'spend_cap_per_tx', params: { limit: '1' } };

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/policies security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_create_security');
    });
    after(() => h.close());

    test("another user's wallet is a 404 NOT_FOUND: no policy, their payments unaffected", async () => {
      const victim = await agentWithKey(h);
      const intruder = await signupUser(h.app);
      const state = await agentState(h);
      expectError(await intruder.api.post(policiesUrl(victim.walletId), CAP), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, "a policy on another user's wallet");
      const paid = toolOk(
        await tool(h, victim.key, 'send_payment', { toAddress: EXTERNAL, amount: '5' }),
        'send_payment',
      );
      assert.equal(paid.status, 'completed');
    });

    test('an agent cannot set its own policies: an API key on the REST route is a 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const reply = await call(h.app, 'POST', policiesUrl(agent.walletId), CAP, { token: agent.key });
      expectError(reply, 401, 'UNAUTHORIZED');
      await assertAgentStateUnchanged(h, state, 'a policy made with an API key');
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'POST',
        policiesUrl(agent.walletId),
        CAP,
      );
    });

    test("a policy binds only its own wallet, not the user's other agent wallets", async () => {
      const agent = await agentWithKey(h);
      const other = await addAgentWallet(agent.user, '50');
      const otherKey = await createKey(agent.user, other.id, { label: 'other' });
      assert.equal((await agent.user.api.post(policiesUrl(agent.walletId), CAP)).status, 201);
      const paid = toolOk(
        await tool(h, otherKey.key, 'send_payment', { toAddress: EXTERNAL, amount: '5' }),
        'send_payment',
      );
      assert.equal(paid.status, 'completed');
      const balance = toolOk(await tool(h, otherKey.key, 'check_balance'), 'check_balance');
      assert.equal(balance.dailyCapRemaining, null);
      const listed = await agent.user.api.get(policiesUrl(other.id));
      assert.equal(listed.body.data.total, 0);
    });
  });
}
