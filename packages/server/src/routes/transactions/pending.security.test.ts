import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, holdPayment, pendingUrl } from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/transactions/pending security (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_pending_security');
    });
    after(() => h.close());

    test("another user's wallet is a 404 NOT_FOUND that shows none of its held payments", async () => {
      const victim = await agentWithKey(h);
      const txId = await holdPayment(h, victim, '4.2');
      const intruder = await agentWithKey(h);
      await holdPayment(h, intruder, '1');
      const reply = await intruder.user.api.get(pendingUrl(victim.walletId));
      expectError(reply, 404, 'NOT_FOUND');
      assert.ok(!reply.raw.includes(txId));
      const own = await intruder.user.api.get(pendingUrl(intruder.walletId));
      assert.equal(own.body.data.total, 1);
      assert.notEqual(own.body.data.transactions[0].id, txId);
    });

    test('an API key cannot list held payments over REST: 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      await holdPayment(h, agent, '1');
      expectError(
        await call(h.app, 'GET', pendingUrl(agent.walletId), undefined, { token: agent.key }),
        401,
        'UNAUTHORIZED',
      );
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'GET',
        pendingUrl(agent.walletId),
      );
    });
  });
}
