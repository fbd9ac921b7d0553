import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  assertKeyView,
  createKey,
  expectToolError,
  keyInList,
  keyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys/:keyId/revoke happy (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_revoke_happy');
    });
    after(() => h.close());

    test('200 with the key, status revoked; the very next tool call is 401 MCP_AUTH_INVALID', async () => {
      const agent = await agentWithKey(h);
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance'); // warms any lookup cache
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assertKeyView(reply.body.data);
      assert.equal(reply.body.data.id, agent.keyId);
      assert.equal(reply.body.data.status, 'revoked');
      assert.equal(reply.body.data.revokedAt, new Date(h.clock.nowMs()).toISOString());
      for (const name of ['check_balance', 'get_tx_history'] as const) {
        expectToolError(await tool(h, agent.key, name), name, 401, 'MCP_AUTH_INVALID');
      }
      expectToolError(
        await tool(h, agent.key, 'send_payment', { toAddress: `0x${'ab'.repeat(20)}`, amount: '1' }),
        'send_payment',
        401,
        'MCP_AUTH_INVALID',
      );
      assert.equal((await keyInList(agent.user, agent.walletId, agent.keyId)).status, 'revoked');
    });

    test('an empty JSON body is accepted too', async () => {
      const agent = await agentWithKey(h);
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'), {});
      assert.equal(reply.status, 200, reply.raw);
      expectToolError(await tool(h, agent.key, 'check_balance'), 'check_balance', 401, 'MCP_AUTH_INVALID');
    });

    test('other keys of the wallet keep working', async () => {
      const agent = await agentWithKey(h);
      const other = await createKey(agent.user, agent.walletId, { label: 'other' });
      await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      const data = toolOk(await tool(h, other.key, 'check_balance'), 'check_balance');
      assert.equal(data.walletId, agent.walletId);
    });

    test('revoking twice changes nothing: the first revokedAt stays', async () => {
      const agent = await agentWithKey(h);
      const first = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      h.clock.advanceSeconds(10);
      const second = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      assert.equal(second.status, 200, second.raw);
      assert.equal(second.body.data.revokedAt, first.body.data.revokedAt);
      assert.equal(second.body.data.status, 'revoked');
    });

    test('revoking a key in its rotation grace ends the grace now; the new key lives on', async () => {
      const agent = await agentWithKey(h);
      const rotation = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {
        gracePeriodSeconds: 3600,
      });
      assert.equal(rotation.status, 201, rotation.raw);
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.status, 'revoked');
      assert.equal(reply.body.data.revokedAt, new Date(h.clock.nowMs()).toISOString());
      expectToolError(await tool(h, agent.key, 'check_balance'), 'check_balance', 401, 'MCP_AUTH_INVALID');
      toolOk(await tool(h, rotation.body.data.key, 'check_balance'), 'check_balance');
    });

    test('an expired key can be revoked', async () => {
      const agent = await agentWithKey(h);
      const expiring = await createKey(agent.user, agent.walletId, {
        label: 'short',
        expiresAt: new Date(h.clock.nowMs() + 1000).toISOString(),
      });
      h.clock.advanceSeconds(2);
      const reply = await agent.user.api.post(keyUrl(agent.walletId, expiring.id, 'revoke'));
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.status, 'revoked');
    });
  });
}
