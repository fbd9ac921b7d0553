import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  assertKeyView,
  assertNoKeyMaterial,
  createKey,
  keyInList,
  keysUrl,
  keyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/keys happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_list_happy');
    });
    after(() => h.close());

    test('an empty wallet lists {items: [], total: 0, page: 1, limit: 20}', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const reply = await user.api.get(keysUrl(walletId));
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, { success: true, data: { items: [], total: 0, page: 1, limit: 20 } });
    });

    test('items carry prefix and metadata, newest first, never the key', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const first = await createKey(user, walletId, { label: 'first', scopes: ['read'] });
      h.clock.advanceSeconds(1);
      const second = await createKey(user, walletId, { label: 'second', scopes: 'write' });
      const reply = await user.api.get(keysUrl(walletId));
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, ['items', 'total', 'page', 'limit']);
      assert.equal(reply.body.data.total, 2);
      const [newest, oldest] = reply.body.data.items;
      for (const item of reply.body.data.items) assertKeyView(item);
      assert.deepEqual(
        { ...newest },
        {
          id: second.id,
          type: 'api_key',
          clientName: null,
          prefix: second.prefix,
          label: 'second',
          scopes: ['write'],
          walletId,
          status: 'active',
          createdAt: second.createdAt,
          expiresAt: null,
          revokedAt: null,
          lastUsedAt: null,
          rotatedToKeyId: null,
        },
      );
      assert.equal(oldest.id, first.id);
      assert.deepEqual(oldest.scopes, ['read']);
      assertNoKeyMaterial(reply, [first.key, second.key]);
    });

    test('status is active, rotating, revoked or expired', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const active = await createKey(user, walletId, { label: 'active' });
      const revoked = await createKey(user, walletId, { label: 'revoked' });
      const rotated = await createKey(user, walletId, { label: 'rotated' });
      const expiring = await createKey(user, walletId, {
        label: 'expiring',
        expiresAt: new Date(h.clock.nowMs() + 60_000).toISOString(),
      });
      assert.equal((await user.api.post(keyUrl(walletId, revoked.id, 'revoke'))).status, 200);
      const rotation = await user.api.post(keyUrl(walletId, rotated.id, 'rotate'), {
        gracePeriodSeconds: 120,
      });
      assert.equal(rotation.status, 201, rotation.raw);
      h.clock.advanceSeconds(61);
      const statuses = async () =>
        Object.fromEntries(
          (await user.api.get(keysUrl(walletId))).body.data.items.map(
            (k: { label: string; id: string; status: string }) => [
              k.id === rotation.body.data.id ? 'new' : k.label,
              k.status,
            ],
          ),
        );
      assert.deepEqual(await statuses(), {
        active: 'active',
        revoked: 'revoked',
        rotated: 'rotating',
        expiring: 'expired',
        new: 'active',
      });
      const rotating = await keyInList(user, walletId, rotated.id);
      assert.equal(rotating.rotatedToKeyId, rotation.body.data.id);
      assert.equal(rotating.revokedAt, new Date(h.clock.nowMs() - 61_000 + 120_000).toISOString());
      h.clock.advanceSeconds(60);
      assert.equal((await statuses()).rotated, 'revoked');
      assert.equal((await keyInList(user, walletId, active.id)).status, 'active');
      assert.equal((await keyInList(user, walletId, expiring.id)).expiresAt, expiring.expiresAt);
    });

    test('lastUsedAt is set by a tool call (after the batched write is flushed)', async () => {
      const agent = await agentWithKey(h);
      assert.equal((await keyInList(agent.user, agent.walletId, agent.keyId)).lastUsedAt, null);
      h.clock.advanceSeconds(30);
      const usedAt = new Date(h.clock.nowMs()).toISOString();
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      await h.services.keys.flushLastUsed();
      h.clock.advanceSeconds(30);
      assert.equal((await keyInList(agent.user, agent.walletId, agent.keyId)).lastUsedAt, usedAt);
      const stored = await h.services.store.db
        .selectFrom('api_keys')
        .select('last_used_at_ms')
        .where('id', '=', agent.keyId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.last_used_at_ms), Date.parse(usedAt));
      // A later call moves it forward.
      const laterAt = new Date(h.clock.nowMs()).toISOString();
      toolOk(await tool(h, agent.key, 'get_tx_history'), 'get_tx_history');
      await h.services.keys.flushLastUsed();
      assert.equal((await keyInList(agent.user, agent.walletId, agent.keyId)).lastUsedAt, laterAt);
    });

    test('pagination: page and limit', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await createKey(user, walletId, { label: `k${i}` })).id);
      const page1 = await user.api.get(`${keysUrl(walletId)}?limit=2`);
      const page3 = await user.api.get(`${keysUrl(walletId)}?limit=2&page=3`);
      const page4 = await user.api.get(`${keysUrl(walletId)}?limit=2&page=4`);
      assert.deepEqual(
        page1.body.data.items.map((k: { id: string }) => k.id),
        [ids[4], ids[3]],
      );
      assert.equal(page1.body.data.total, 5);
      assert.equal(page1.body.data.limit, 2);
      assert.deepEqual(
        page3.body.data.items.map((k: { id: string }) => k.id),
        [ids[0]],
      );
      assert.equal(page3.body.data.page, 3);
      assert.deepEqual(page4.body.data.items, []);
      assert.equal(page4.body.data.total, 5);
      const all = await user.api.get(`${keysUrl(walletId)}?limit=100`);
      assert.equal(all.body.data.items.length, 5);
    });
  });
}
