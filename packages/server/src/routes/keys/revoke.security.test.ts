import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  assertNoKeyMaterial,
  createKey,
  expectToolError,
  keyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys/:keyId/revoke security (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_revoke_security');
    });
    after(() => h.close());

    test("another user's key is a 404 NOT_FOUND, and it keeps working", async () => {
      const victim = await agentWithKey(h);
      const intruder = await agentWithKey(h);
      const state = await agentState(h);
      // Their wallet with their key, and the intruder's own wallet with the victim's key id.
      expectError(
        await intruder.user.api.post(keyUrl(victim.walletId, victim.keyId, 'revoke')),
        404,
        'NOT_FOUND',
      );
      expectError(
        await intruder.user.api.post(keyUrl(intruder.walletId, victim.keyId, 'revoke')),
        404,
        'NOT_FOUND',
      );
      await assertAgentStateUnchanged(h, state, "revoking another user's key");
      toolOk(await tool(h, victim.key, 'check_balance'), 'check_balance');
    });

    test('an API key cannot revoke keys over REST: 401 UNAUTHORIZED', async () => {
      const agent = await agentWithKey(h);
      const other = await createKey(agent.user, agent.walletId, { label: 'other' });
      const state = await agentState(h);
      const reply = await call(h.app, 'POST', keyUrl(agent.walletId, other.id, 'revoke'), undefined, {
        token: agent.key,
      });
      expectError(reply, 401, 'UNAUTHORIZED');
      await assertAgentStateUnchanged(h, state, 'a revocation with an API key');
      await expectRejectsBadCredentials(
        h,
        agent.user,
        await signupUser(h.app),
        'POST',
        keyUrl(agent.walletId, other.id, 'revoke'),
      );
      toolOk(await tool(h, other.key, 'check_balance'), 'check_balance');
    });

    test('the refusal of a revoked key never echoes the key', async () => {
      const agent = await agentWithKey(h);
      const revoke = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      assertNoKeyMaterial(revoke, [agent.key]);
      const reply = await tool(h, agent.key, 'check_balance');
      expectToolError(reply, 'check_balance', 401, 'MCP_AUTH_INVALID');
      assertNoKeyMaterial(reply, [agent.key]);
      assert.ok(!reply.raw.includes(agent.keyId), 'the refusal names the key id');
    });
  });
}
