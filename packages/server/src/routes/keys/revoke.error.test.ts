import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  keyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys/:keyId/revoke error (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_revoke_error');
    });
    after(() => h.close());

    test('an unknown key id or wallet id is a 404 NOT_FOUND and revokes nothing', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      expectError(await agent.user.api.post(keyUrl(agent.walletId, 'key_nope', 'revoke')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.post(keyUrl('wal_nope', agent.keyId, 'revoke')), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, 'an unknown id');
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
    });

    test("a key addressed through another of the same user's wallets is a 404", async () => {
      const agent = await agentWithKey(h);
      const other = await addAgentWallet(agent.user);
      const state = await agentState(h);
      expectError(await agent.user.api.post(keyUrl(other.id, agent.keyId, 'revoke')), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, 'a mismatched wallet');
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
    });

    test('a body with fields is a 400 and revokes nothing', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      expectValidation(
        await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'), {
          at: '2000-01-01T00:00:00Z',
        }),
        'at',
      );
      expectError(
        await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'), '[]'),
        400,
        'VALIDATION_ERROR',
      );
      await assertAgentStateUnchanged(h, state, 'a bad body');
      assert.equal((await tool(h, agent.key, 'check_balance')).status, 200);
    });
  });
}
