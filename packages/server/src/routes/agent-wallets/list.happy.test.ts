import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAgentWalletShape, assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    const created: string[] = [];
    before(async () => {
      h = await startHarness(target.name, 'aw_list_happy');
      user = await signupUser(h.app);
      await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '100' });
      for (let i = 1; i <= 23; i += 1) {
        if (i % 4 === 0) h.clock.advanceSeconds(1);
        const reply = await user.api.post('/api/v1/agent-wallets', { label: `agent ${i}` });
        assert.equal(reply.status, 201, reply.raw);
        created.push(reply.body.data.id);
      }
      await user.api.post(`/api/v1/agent-wallets/${created[0]}/fund`, { amount: '12.5' });
    });
    after(() => h.close());

    test('no wallets: {items: [], total: 0, page: 1, limit: 20}', async () => {
      const fresh = await signupUser(h.app);
      const reply = await fresh.api.get('/api/v1/agent-wallets');
      assert.equal(reply.status, 200, reply.raw);
      // The contract's list fields, plus the documented `pendingApprovals` total across the user's wallets.
      assert.deepEqual(reply.body, {
        success: true,
        data: { items: [], total: 0, page: 1, limit: 20, pendingApprovals: 0 },
      });
    });

    test('the first page: 20 wallets, newest first, full wallet views', async () => {
      const reply = await user.api.get('/api/v1/agent-wallets');
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, ['items', 'total', 'page', 'limit', 'pendingApprovals']);
      assert.equal(reply.body.data.pendingApprovals, 0);
      assert.equal(reply.body.data.total, 23);
      assert.equal(reply.body.data.page, 1);
      assert.equal(reply.body.data.limit, 20);
      assert.deepEqual(
        reply.body.data.items.map((w: { id: string }) => w.id),
        [...created].reverse().slice(0, 20),
      );
      for (const wallet of reply.body.data.items) assertAgentWalletShape(wallet);
      assert.equal(reply.body.data.items[0].label, 'agent 23');
    });

    test('page 2 ends the list; balances are those of each wallet', async () => {
      const reply = await user.api.get('/api/v1/agent-wallets?page=2');
      assert.equal(reply.body.data.page, 2);
      assert.deepEqual(
        reply.body.data.items.map((w: { id: string }) => w.id),
        [...created].reverse().slice(20),
      );
      const oldest = reply.body.data.items.at(-1);
      assert.equal(oldest.id, created[0]);
      assert.equal(oldest.balance, '12.500000');
      assert.equal(reply.body.data.items[0].balance, '0.000000');
    });

    test('limit and page move through every wallet exactly once', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 5; page += 1) {
        const reply = await user.api.get(`/api/v1/agent-wallets?limit=5&page=${page}`);
        assert.equal(reply.body.data.limit, 5);
        seen.push(...reply.body.data.items.map((w: { id: string }) => w.id));
      }
      assert.deepEqual(seen, [...created].reverse());
      const past = await user.api.get('/api/v1/agent-wallets?limit=100&page=2');
      assert.deepEqual(past.body.data, { items: [], total: 23, page: 2, limit: 100, pendingApprovals: 0 });
    });
  });
}
