import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertCreatedKey,
  assertKeyView,
  assertNoKeyMaterial,
  CREATED_KEY_KEYS,
  KEY_PREFIX_LENGTH,
  keysUrl,
  listKeys,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_create_happy');
    });
    after(() => h.close());

    test('201 {id, key, prefix, label, scopes, walletId, createdAt, expiresAt}: the key is shown once', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const reply = await user.api.post(keysUrl(walletId), { label: '  trading bot  ' });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.success, true);
      assertKeys(reply.body.data, CREATED_KEY_KEYS);
      const data = reply.body.data;
      assertCreatedKey(data, { label: 'trading bot', scopes: ['read', 'write'], walletId });
      assert.equal(data.prefix.length, KEY_PREFIX_LENGTH);
      assert.equal(data.createdAt, new Date(h.clock.nowMs()).toISOString());
      assert.equal(data.expiresAt, null);
      assert.equal(reply.headers['cache-control'], 'no-store');

      // Nowhere else, ever: the listing shows the prefix only.
      const list = await user.api.get(keysUrl(walletId));
      assert.equal(list.status, 200);
      assertNoKeyMaterial(list, [data.key]);
      const item = list.body.data.items.find((k: { id: string }) => k.id === data.id);
      assertKeyView(item);
      assert.equal(item.prefix, data.prefix);
      assert.equal(item.status, 'active');
    });

    test('the new key works at once on the tool interface, for its own wallet', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const created = (await user.api.post(keysUrl(walletId), { label: 'k' })).body.data;
      const data = toolOk(await tool(h, created.key, 'check_balance'), 'check_balance');
      assert.equal(data.walletId, walletId);
    });

    test('every accepted scopes form, normalised to a sorted list', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const cases: Array<[unknown, string[]]> = [
        [['read'], ['read']],
        [['write'], ['write']],
        [
          ['read', 'write'],
          ['read', 'write'],
        ],
        [
          ['write', 'read'],
          ['read', 'write'],
        ],
        ['read', ['read']],
        ['write', ['write']],
        ['read,write', ['read', 'write']],
        ['write,read', ['read', 'write']],
      ];
      for (const [scopes, expected] of cases) {
        const reply = await user.api.post(keysUrl(walletId), { label: 'scoped', scopes });
        assert.equal(reply.status, 201, `${JSON.stringify(scopes)}: ${reply.raw}`);
        assert.deepEqual(reply.body.data.scopes, expected, JSON.stringify(scopes));
      }
      const listed = await listKeys(user, walletId);
      assert.deepEqual(
        listed.map((k) => k.scopes).reverse(),
        cases.map(([, expected]) => expected),
      );
    });

    test('expiresAt is kept and rendered in UTC; offsets are converted', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const at = new Date(h.clock.nowMs() + 86_400_000).toISOString();
      const reply = await user.api.post(keysUrl(walletId), { label: 'expiring', expiresAt: at });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.data.expiresAt, at);

      const offset = await user.api.post(keysUrl(walletId), {
        label: 'offset',
        expiresAt: '2026-11-02T14:00:00+02:00',
      });
      assert.equal(offset.status, 201, offset.raw);
      assert.equal(offset.body.data.expiresAt, '2026-11-02T12:00:00.000Z');
      const item = (await listKeys(user, walletId)).find((k) => k.id === reply.body.data.id);
      assert.equal(item.expiresAt, at);
      assert.equal(item.status, 'active');
    });

    test('labels of 1 and 100 characters; several keys per wallet, each different', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const a = await user.api.post(keysUrl(walletId), { label: 'x' });
      const b = await user.api.post(keysUrl(walletId), { label: 'y'.repeat(100) });
      assert.equal(a.status, 201, a.raw);
      assert.equal(b.status, 201, b.raw);
      assert.notEqual(a.body.data.key, b.body.data.key);
      assert.notEqual(a.body.data.id, b.body.data.id);
      assert.equal(b.body.data.label, 'y'.repeat(100));
    });
  });
}
