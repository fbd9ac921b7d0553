import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  assertNoKeyMaterial,
  createKey,
  expectToolError,
  keysUrl,
  keyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys/:keyId/rotate security (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_rotate_security');
    });
    after(() => h.close());

    test("another user's key is a 404 NOT_FOUND: no key is made and theirs keeps working", async () => {
      const victim = await agentWithKey(h);
      const intruder = await agentWithKey(h);
      const state = await agentState(h);
      for (const walletId of [victim.walletId, intruder.walletId]) {
        const reply = await intruder.user.api.post(keyUrl(walletId, victim.keyId, 'rotate'), {
          gracePeriodSeconds: 0,
        });
        expectError(reply, 404, 'NOT_FOUND');
        assert.ok(!/svc_live_/.test(reply.raw), 'a refusal shows a key');
      }
      await assertAgentStateUnchanged(h, state, "rotating another user's key");
      toolOk(await tool(h, victim.key, 'check_balance'), 'check_balance');
    });

    test('an API key cannot rotate itself over REST: 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const reply = await call(
        h.app,
        'POST',
        keyUrl(agent.walletId, agent.keyId, 'rotate'),
        {},
        { token: agent.key },
      );
      expectError(reply, 401, 'UNAUTHORIZED');
      assertNoKeyMaterial(reply, [agent.key]);
      await assertAgentStateUnchanged(h, state, 'a rotation with an API key');
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'POST',
        keyUrl(agent.walletId, agent.keyId, 'rotate'),
        {},
      );
    });

    test('the rotated-to key is shown once: later listings show neither key nor hash', async () => {
      const agent = await agentWithKey(h);
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {});
      assert.equal(reply.status, 201, reply.raw);
      const list = await agent.user.api.get(keysUrl(agent.walletId));
      assertNoKeyMaterial(list, [agent.key, reply.body.data.key]);
    });

    test("rotation never lengthens a key's life: the new key expires when the old one would have", async () => {
      // The owner cannot set expiresAt on rotate, so dropping it would turn a time-boxed key into a permanent one.
      const agent = await agentWithKey(h);
      const expiresAt = new Date(h.clock.nowMs() + 24 * 3600 * 1000).toISOString();
      const expiring = await createKey(agent.user, agent.walletId, { label: 'one day', expiresAt });
      const reply = await agent.user.api.post(keyUrl(agent.walletId, expiring.id, 'rotate'), {
        gracePeriodSeconds: 0,
      });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(
        reply.body.data.expiresAt,
        expiresAt,
        'the rotated-to key outlives the expiry its owner set',
      );
      h.clock.advanceSeconds(24 * 3600);
      expectToolError(
        await tool(h, reply.body.data.key, 'check_balance'),
        'check_balance',
        401,
        'MCP_AUTH_INVALID',
      );
    });
  });
}
