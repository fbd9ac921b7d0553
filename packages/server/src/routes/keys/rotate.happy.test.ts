import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  assertCreatedKey,
  assertKeyView,
  assertNoKeyMaterial,
  createKey,
  expectToolError,
  keyInList,
  keyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

const GRACE_DEFAULT = 3600;
const GRACE_MAX = 7 * 24 * 3600;

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys/:keyId/rotate happy (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_rotate_happy');
    });
    after(() => h.close());

    test('201 a new key (shown once) with the same label and scopes, and the previous key', async () => {
      const agent = await agentWithKey(h, { scopes: ['read'] });
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {
        gracePeriodSeconds: 60,
      });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.success, true);
      const data = reply.body.data;
      assertKeys(data, [
        'id',
        'key',
        'prefix',
        'label',
        'scopes',
        'walletId',
        'createdAt',
        'expiresAt',
        'previousKey',
      ]);
      assertCreatedKey(data, { label: 'agent key', scopes: ['read'], walletId: agent.walletId });
      assert.notEqual(data.id, agent.keyId);
      assert.notEqual(data.key, agent.key);
      assert.equal(data.createdAt, new Date(h.clock.nowMs()).toISOString());
      assertKeyView(data.previousKey);
      assert.equal(data.previousKey.id, agent.keyId);
      assert.equal(data.previousKey.status, 'rotating');
      assert.equal(data.previousKey.rotatedToKeyId, data.id);
      assert.equal(data.previousKey.revokedAt, new Date(h.clock.nowMs() + 60_000).toISOString());
      assert.equal(reply.headers['cache-control'], 'no-store');
      assertNoKeyMaterial({ ...reply, raw: JSON.stringify(data.previousKey) }, [agent.key, data.key]);
      assert.ok(!reply.raw.includes(agent.key), 'the rotation shows the old key');

      const created = toolOk(await tool(h, data.key, 'check_balance'), 'check_balance');
      assert.equal(created.walletId, agent.walletId);
      expectToolError(
        await tool(h, data.key, 'send_payment', { toAddress: `0x${'ab'.repeat(20)}`, amount: '1' }),
        'send_payment',
        403,
        'INSUFFICIENT_SCOPE',
      );
      const listed = await keyInList(agent.user, agent.walletId, data.id);
      assert.equal(listed.status, 'active');
      assert.equal(listed.label, 'agent key');
      assert.deepEqual(listed.scopes, ['read']);
    });

    test('the old key works until the grace ends: at grace-1s yes, at grace no', async () => {
      const agent = await agentWithKey(h);
      const grace = 600;
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {
        gracePeriodSeconds: grace,
      });
      assert.equal(reply.status, 201, reply.raw);
      const fresh = reply.body.data.key;
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      h.clock.advanceSeconds(grace - 1);
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: `0x${'ab'.repeat(20)}`, amount: '1' }),
        'send_payment',
      );
      h.clock.advanceSeconds(1);
      expectToolError(await tool(h, agent.key, 'check_balance'), 'check_balance', 401, 'MCP_AUTH_INVALID');
      toolOk(await tool(h, fresh, 'check_balance'), 'check_balance');
      assert.equal((await keyInList(agent.user, agent.walletId, agent.keyId)).status, 'revoked');
    });

    test('gracePeriodSeconds 0: the old key is refused at once', async () => {
      const agent = await agentWithKey(h);
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {
        gracePeriodSeconds: 0,
      });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.data.previousKey.status, 'revoked');
      expectToolError(await tool(h, agent.key, 'check_balance'), 'check_balance', 401, 'MCP_AUTH_INVALID');
      toolOk(await tool(h, reply.body.data.key, 'check_balance'), 'check_balance');
    });

    test('the default grace is 3600 s, with no body or an empty one', async () => {
      for (const body of [undefined, {}]) {
        const agent = await agentWithKey(h);
        const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), body);
        assert.equal(reply.status, 201, reply.raw);
        assert.equal(
          reply.body.data.previousKey.revokedAt,
          new Date(h.clock.nowMs() + GRACE_DEFAULT * 1000).toISOString(),
        );
        const start = h.clock.nowMs();
        h.clock.advanceSeconds(GRACE_DEFAULT - 1);
        toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
        h.clock.advanceSeconds(1);
        expectToolError(await tool(h, agent.key, 'check_balance'), 'check_balance', 401, 'MCP_AUTH_INVALID');
        h.clock.setMs(start);
      }
    });

    test('the maximum grace, 7 days, is accepted', async () => {
      const agent = await agentWithKey(h);
      const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {
        gracePeriodSeconds: GRACE_MAX,
      });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(
        reply.body.data.previousKey.revokedAt,
        new Date(h.clock.nowMs() + GRACE_MAX * 1000).toISOString(),
      );
    });

    test('the new key can itself be rotated; a key with scopes "write" keeps them', async () => {
      const agent = await agentWithKey(h);
      const writer = await createKey(agent.user, agent.walletId, { label: 'writer', scopes: 'write' });
      const first = await agent.user.api.post(keyUrl(agent.walletId, writer.id, 'rotate'), {
        gracePeriodSeconds: 0,
      });
      assert.equal(first.status, 201, first.raw);
      assert.deepEqual(first.body.data.scopes, ['write']);
      assert.equal(first.body.data.label, 'writer');
      const second = await agent.user.api.post(keyUrl(agent.walletId, first.body.data.id, 'rotate'), {
        gracePeriodSeconds: 0,
      });
      assert.equal(second.status, 201, second.raw);
      assert.deepEqual(second.body.data.scopes, ['write']);
      expectToolError(
        await tool(h, first.body.data.key, 'get_tx_history'),
        'get_tx_history',
        401,
        'MCP_AUTH_INVALID',
      );
      expectToolError(
        await tool(h, second.body.data.key, 'get_tx_history'),
        'get_tx_history',
        403,
        'INSUFFICIENT_SCOPE',
      );
    });
  });
}
