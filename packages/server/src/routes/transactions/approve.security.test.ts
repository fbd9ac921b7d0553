import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  decisionUrl,
  holdPayment,
  pendingUrl,
  walletOf,
} from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST .../transactions/:id/approve security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_approve_security');
    });
    after(() => h.close());

    test("another user's held payment is a 404 NOT_FOUND and stays pending and held", async () => {
      const victim = await agentWithKey(h);
      const txId = await holdPayment(h, victim, '40');
      const intruder = await agentWithKey(h);
      const state = await agentState(h);
      expectError(
        await intruder.user.api.post(decisionUrl(victim.walletId, txId, 'approve')),
        404,
        'NOT_FOUND',
      );
      expectError(
        await intruder.user.api.post(decisionUrl(intruder.walletId, txId, 'approve')),
        404,
        'NOT_FOUND',
      );
      await assertAgentStateUnchanged(h, state, "approving another user's payment");
      const pending = await victim.user.api.get(pendingUrl(victim.walletId));
      assert.equal(pending.body.data.transactions[0].id, txId);
      assert.equal((await walletOf(victim.user, victim.walletId)).heldBalance, '40.000000');
    });

    test('an agent cannot approve its own request: an API key on the REST route is a 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '40');
      const state = await agentState(h);
      const reply = await call(h.app, 'POST', decisionUrl(agent.walletId, txId, 'approve'), undefined, {
        token: agent.key,
      });
      expectError(reply, 401, 'UNAUTHORIZED');
      await assertAgentStateUnchanged(h, state, 'an approval with an API key');
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'POST',
        decisionUrl(agent.walletId, txId, 'approve'),
      );
      assert.equal((await walletOf(agent.user, agent.walletId)).heldBalance, '40.000000');
    });
  });
}
