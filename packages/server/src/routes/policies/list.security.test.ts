import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, createPolicy, policiesUrl } from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/policies security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_list_security');
    });
    after(() => h.close());

    test("another user's wallet is a 404 NOT_FOUND that shows none of its policies", async () => {
      const victim = await agentWithKey(h);
      const policy = await createPolicy(victim.user, victim.walletId, 'spend_cap_daily', {
        limit: '123.456',
      });
      const intruder = await agentWithKey(h);
      const reply = await intruder.user.api.get(policiesUrl(victim.walletId));
      expectError(reply, 404, 'NOT_FOUND');
      assert.ok(!reply.raw.includes(policy.id));
      assert.ok(!reply.raw.includes('123.456'));
      const own = await intruder.user.api.get(policiesUrl(intruder.walletId));
      assert.equal(own.body.data.total, 0);
    });

    test('an API key cannot read policies over REST: 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const reply = await call(h.app, 'GET', policiesUrl(agent.walletId), undefined, { token: agent.key });
      expectError(reply, 401, 'UNAUTHORIZED');
      assert.ok(!reply.raw.includes('spend_cap_per_tx'));
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'GET',
        policiesUrl(agent.walletId),
      );
    });
  });
}
