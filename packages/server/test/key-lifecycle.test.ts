// Revocation, rotation grace and expiry observed to the second with an injected clock (no sleeps).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKey, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser, stepUpWithPassword } from './support/http.ts';

for (const target of await storeTargets()) {
  describe(`key lifecycle (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'key_life');
    });
    after(() => h.close());

    const works = async (key: string) => (await tool(h.app, key, 'check_balance')).status === 200;

    test('revocation refuses the very next request, even right after a cached success', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const key = await createKey(user, walletId);
      const keyId = (await user.api.get(`/api/v1/agent-wallets/${walletId}/keys`)).body.data.items[0].id;
      assert.equal(await works(key), true);
      assert.equal(await works(key), true); // served from the lookup cache on SQLite
      const revoked = await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${keyId}/revoke`);
      assert.equal(revoked.body.data.status, 'revoked');
      expectError(await tool(h.app, key, 'check_balance'), 401, 'MCP_AUTH_INVALID');
    });

    test('a rotated key works until exactly now + grace, the new one at once', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const oldKey = await createKey(user, walletId, { label: 'rotating', scopes: ['read'] });
      const keyId = (await user.api.get(`/api/v1/agent-wallets/${walletId}/keys`)).body.data.items[0].id;
      assert.equal(await works(oldKey), true);
      const rotated = await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${keyId}/rotate`, {
        gracePeriodSeconds: 90,
      });
      assert.equal(rotated.status, 201);
      assert.equal(rotated.body.data.label, 'rotating');
      assert.deepEqual(rotated.body.data.scopes, ['read']);
      const newKey = rotated.body.data.key;
      assert.equal(await works(newKey), true);
      h.clock.advanceSeconds(89);
      assert.equal(await works(oldKey), true, 'one second before the grace ends');
      h.clock.advanceMs(999);
      assert.equal(await works(oldKey), true, 'one millisecond before the grace ends');
      h.clock.advanceMs(1);
      expectError(await tool(h.app, oldKey, 'check_balance'), 401, 'MCP_AUTH_INVALID');
      assert.equal(await works(newKey), true);
      const again = await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${keyId}/rotate`, {});
      expectError(again, 409, 'INVALID_STATE');
    });

    test('default grace is an hour; grace 0 kills the old key at once', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const first = await createKey(user, walletId);
      const list = async () => (await user.api.get(`/api/v1/agent-wallets/${walletId}/keys`)).body.data.items;
      const firstId = (await list())[0].id;
      const r1 = await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${firstId}/rotate`);
      const expectedEnd = new Date(h.clock.nowMs() + 3600 * 1000).toISOString();
      assert.equal(r1.body.data.previousKey.revokedAt, expectedEnd);
      assert.equal(r1.body.data.previousKey.status, 'rotating');
      h.clock.advanceSeconds(3599);
      assert.equal(await works(first), true);
      h.clock.advanceSeconds(1);
      assert.equal(await works(first), false);
      const second = r1.body.data.key;
      await stepUpWithPassword(user);
      const r2 = await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${r1.body.data.id}/rotate`, {
        gracePeriodSeconds: 0,
      });
      assert.equal(r2.status, 201);
      assert.equal(await works(second), false);
      assert.equal(await works(r2.body.data.key), true);
    });

    test('expiresAt is honoured to the millisecond, and an expired key cannot be rotated', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const expiresAt = new Date(h.clock.nowMs() + 10_000).toISOString();
      const key = await createKey(user, walletId, { label: 'short', expiresAt });
      h.clock.advanceMs(9_999);
      assert.equal(await works(key), true);
      h.clock.advanceMs(1);
      expectError(await tool(h.app, key, 'check_balance'), 401, 'MCP_AUTH_INVALID');
      const keyId = (await user.api.get(`/api/v1/agent-wallets/${walletId}/keys`)).body.data.items[0].id;
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${keyId}/rotate`),
        409,
        'INVALID_STATE',
      );
    });

    test('lastUsedAt is batched in memory and written by the flush', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const key = await createKey(user, walletId);
      h.clock.advanceSeconds(5);
      await works(key);
      const usedAt = new Date(h.clock.nowMs()).toISOString();
      await h.services.keys.flushLastUsed();
      const row = await h.services.store.db
        .selectFrom('api_keys')
        .select('last_used_at_ms')
        .where('wallet_id', '=', walletId)
        .executeTakeFirstOrThrow();
      assert.equal(new Date(Number(row.last_used_at_ms)).toISOString(), usedAt);
    });
  });
}
