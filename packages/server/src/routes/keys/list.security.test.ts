import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  assertNoKeyMaterial,
  createKey,
  keysUrl,
  keyUrl,
} from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/keys security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_list_security');
    });
    after(() => h.close());

    test("another user's wallet is a 404 NOT_FOUND that shows nothing of its keys", async () => {
      const agent = await agentWithKey(h);
      const intruder = await signupUser(h.app);
      const reply = await intruder.api.get(keysUrl(agent.walletId));
      expectError(reply, 404, 'NOT_FOUND');
      assert.ok(!reply.raw.includes(agent.keyId));
      assertNoKeyMaterial(reply, [agent.key]);
    });

    test('no key or hash in the list, whatever state the keys are in', async () => {
      const agent = await agentWithKey(h);
      const revoked = await createKey(agent.user, agent.walletId, { label: 'revoked' });
      await agent.user.api.post(keyUrl(agent.walletId, revoked.id, 'revoke'));
      const rotation = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {});
      assert.equal(rotation.status, 201, rotation.raw);
      const reply = await agent.user.api.get(keysUrl(agent.walletId));
      assert.equal(reply.status, 200);
      assert.equal(reply.body.data.total, 3);
      assertNoKeyMaterial(reply, [agent.key, revoked.key, rotation.body.data.key]);
    });

    test('an API key, even the listed one, cannot list keys: 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const reply = await call(h.app, 'GET', keysUrl(agent.walletId), undefined, { token: agent.key });
      expectError(reply, 401, 'UNAUTHORIZED');
      assertNoKeyMaterial(reply, [agent.key]);
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'GET',
        keysUrl(agent.walletId),
      );
    });
  });
}
