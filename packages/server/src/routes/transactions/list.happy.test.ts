import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertKeys, assertTransactionShape } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { fundedUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id/transactions happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let walletId: string;
    let otherWalletId: string;
    const made: Array<{ id: string; type: string; amount: string }> = [];
    before(async () => {
      h = await startHarness(target.name, 'tx_list_happy');
      ({ user, walletId } = await fundedUser(h.app, '1000'));
      const other = await user.api.post('/api/v1/agent-wallets', { label: 'other' });
      otherWalletId = other.body.data.id;
      await user.api.post(`/api/v1/agent-wallets/${otherWalletId}/fund`, { amount: '1' });
      // 24 movements on the wallet, some in the same clock millisecond, some minutes apart.
      for (let i = 1; i <= 24; i += 1) {
        if (i % 5 === 0) h.clock.advanceSeconds(120);
        const direction = i % 3 === 0 ? 'withdraw' : 'fund';
        const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/${direction}`, {
          amount: `${i}.5`,
        });
        assert.equal(reply.status, 200, reply.raw);
        made.push({
          id: reply.body.data.transaction.id,
          type: direction,
          amount: reply.body.data.transaction.amount,
        });
      }
    });
    after(() => h.close());

    test('a new wallet: {transactions: [], total: 0, page: 1, limit: 20}', async () => {
      const fresh = await user.api.post('/api/v1/agent-wallets', { label: 'fresh' });
      const reply = await user.api.get(`/api/v1/agent-wallets/${fresh.body.data.id}/transactions`);
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, {
        success: true,
        data: { transactions: [], total: 0, page: 1, limit: 20 },
      });
    });

    test('the first page: 20 transactions of this wallet only, newest first', async () => {
      const reply = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions`);
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, ['transactions', 'total', 'page', 'limit']);
      assert.equal(reply.body.data.total, 24);
      assert.equal(reply.body.data.page, 1);
      assert.equal(reply.body.data.limit, 20);
      const newestFirst = [...made].reverse();
      assert.deepEqual(
        reply.body.data.transactions.map((t: { id: string }) => t.id),
        newestFirst.slice(0, 20).map((t) => t.id),
      );
      for (const [i, tx] of reply.body.data.transactions.entries()) {
        assertTransactionShape(tx);
        assert.equal(tx.walletId, walletId);
        assert.equal(tx.type, newestFirst[i]!.type);
        assert.equal(tx.amount, newestFirst[i]!.amount);
        assert.equal(tx.status, 'completed');
      }
      assert.equal(reply.body.data.transactions[0].amount, '24.500000');
    });

    test('page 2 and limit move through every transaction once', async () => {
      const page2 = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions?page=2`);
      assert.deepEqual(
        page2.body.data.transactions.map((t: { id: string }) => t.id),
        [...made]
          .reverse()
          .slice(20)
          .map((t) => t.id),
      );
      const seen: string[] = [];
      for (let page = 1; page <= 3; page += 1) {
        const reply = await user.api.get(
          `/api/v1/agent-wallets/${walletId}/transactions?limit=10&page=${page}`,
        );
        assert.equal(reply.body.data.limit, 10);
        seen.push(...reply.body.data.transactions.map((t: { id: string }) => t.id));
      }
      assert.deepEqual(
        seen,
        [...made].reverse().map((t) => t.id),
      );
      const past = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions?page=4&limit=10`);
      assert.deepEqual(past.body.data, { transactions: [], total: 24, page: 4, limit: 10 });
    });

    test('?status= filters: completed lists all, pending none', async () => {
      const completed = await user.api.get(
        `/api/v1/agent-wallets/${walletId}/transactions?status=completed&limit=100`,
      );
      assert.equal(completed.status, 200, completed.raw);
      assert.equal(completed.body.data.total, 24);
      assert.equal(completed.body.data.transactions.length, 24);
      for (const status of ['pending', 'rejected', 'failed', 'processing', 'expired']) {
        const reply = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions?status=${status}`);
        assert.equal(reply.status, 200, reply.raw);
        assert.deepEqual(reply.body.data, { transactions: [], total: 0, page: 1, limit: 20 });
      }
    });

    test("another wallet's transactions stay on that wallet", async () => {
      const reply = await user.api.get(`/api/v1/agent-wallets/${otherWalletId}/transactions`);
      assert.equal(reply.body.data.total, 1);
      assert.equal(reply.body.data.transactions[0].walletId, otherWalletId);
      assert.equal(reply.body.data.transactions[0].amount, '1.000000');
    });
  });
}
