import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertIso, assertKeys, DEPOSIT_KEYS } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet/deposits happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    const made: Array<{ id: string; amount: string }> = [];
    before(async () => {
      h = await startHarness(target.name, 'deposits_happy');
      user = await signupUser(h.app);
      // 25 deposits: some a minute apart, some in the same millisecond of the clock.
      for (let i = 1; i <= 25; i += 1) {
        if (i % 3 === 0) h.clock.advanceSeconds(60);
        const reply = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: `${i}.25` });
        assert.equal(reply.status, 201, reply.raw);
        made.push({ id: reply.body.data.id, amount: reply.body.data.amount });
      }
    });
    after(() => h.close());

    test('an empty list for a new user: {items: [], total: 0, page: 1, limit: 20}', async () => {
      const fresh = await signupUser(h.app);
      const reply = await fresh.api.get('/api/v1/wallet/deposits');
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, { success: true, data: { items: [], total: 0, page: 1, limit: 20 } });
    });

    test('the first page: 20 items newest first, each {id, amount, currency, rail, txHash, createdAt}', async () => {
      const reply = await user.api.get('/api/v1/wallet/deposits');
      assert.equal(reply.status, 200, reply.raw);
      const data = reply.body.data;
      assertKeys(data, ['items', 'total', 'page', 'limit']);
      assert.equal(data.total, 25);
      assert.equal(data.page, 1);
      assert.equal(data.limit, 20);
      assert.equal(data.items.length, 20);
      const newestFirst = [...made].reverse();
      assert.deepEqual(
        data.items.map((d: { id: string }) => d.id),
        newestFirst.slice(0, 20).map((d) => d.id),
      );
      for (const item of data.items) {
        assertKeys(item, DEPOSIT_KEYS);
        assert.match(item.id, /^dep_/);
        assert.match(item.amount, /^[0-9]+\.250000$/);
        assert.equal(item.currency, 'USDC');
        assert.equal(item.rail, 'sandbox');
        assert.equal(item.txHash, null);
        assertIso(item.createdAt);
      }
      assert.equal(data.items[0].amount, '25.250000');
      const times = data.items.map((d: { createdAt: string }) => Date.parse(d.createdAt));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
      );
    });

    test('page 2 holds the rest; a page past the end is empty with the same total', async () => {
      const page2 = await user.api.get('/api/v1/wallet/deposits?page=2');
      assert.equal(page2.status, 200, page2.raw);
      assert.equal(page2.body.data.page, 2);
      assert.equal(page2.body.data.total, 25);
      assert.deepEqual(
        page2.body.data.items.map((d: { id: string }) => d.id),
        [...made]
          .reverse()
          .slice(20)
          .map((d) => d.id),
      );
      const page9 = await user.api.get('/api/v1/wallet/deposits?page=9&limit=10');
      assert.deepEqual(page9.body.data, { items: [], total: 25, page: 9, limit: 10 });
    });

    test('limit 1 and limit 100 are accepted; pages never overlap', async () => {
      const seen = new Set<string>();
      for (let page = 1; page <= 25; page += 1) {
        const reply = await user.api.get(`/api/v1/wallet/deposits?limit=1&page=${page}`);
        assert.equal(reply.body.data.items.length, 1);
        seen.add(reply.body.data.items[0].id);
      }
      assert.equal(seen.size, 25);
      const all = await user.api.get('/api/v1/wallet/deposits?limit=100');
      assert.equal(all.body.data.limit, 100);
      assert.equal(all.body.data.items.length, 25);
    });
  });
}
