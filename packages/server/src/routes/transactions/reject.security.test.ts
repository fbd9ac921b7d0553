import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  decisionUrl,
  holdPayment,
  walletOf,
} from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST .../transactions/:id/reject security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_reject_security');
    });
    after(() => h.close());

    test("another user's held payment is a 404 NOT_FOUND and stays held", async () => {
      const victim = await agentWithKey(h);
      const txId = await holdPayment(h, victim, '40');
      const intruder = await agentWithKey(h);
      const state = await agentState(h);
      for (const walletId of [victim.walletId, intruder.walletId]) {
        expectError(
          await intruder.user.api.post(decisionUrl(walletId, txId, 'reject'), { reason: 'mine now' }),
          404,
          'NOT_FOUND',
        );
      }
      await assertAgentStateUnchanged(h, state, "rejecting another user's payment");
      assert.equal((await walletOf(victim.user, victim.walletId)).heldBalance, '40.000000');
    });

    test('an API key cannot reject over REST: 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '40');
      const state = await agentState(h);
      const reply = await call(
        h.app,
        'POST',
        decisionUrl(agent.walletId, txId, 'reject'),
        {},
        { token: agent.key },
      );
      expectError(reply, 401, 'UNAUTHORIZED');
      await assertAgentStateUnchanged(h, state, 'a rejection with an API key');
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'POST',
        decisionUrl(agent.walletId, txId, 'reject'),
        {},
      );
    });
  });
}
