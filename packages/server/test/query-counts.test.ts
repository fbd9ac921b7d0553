// Statements per request (issue 11), counted at the driver (BEGIN and COMMIT included): what a request costs
// must not grow with the data. check_balance is one query; a page of 100 agent wallets is at most 5 in all
// (the session check included); a payment's statements do not grow with the wallet's history. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { fundedUser, type TestUser } from './support/http.ts';

for (const target of await storeTargets()) {
  describe(`statements per request (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let walletId: string;
    let key: string;
    before(async () => {
      h = await startHarness(target.name, 'query_counts');
      ({ user, walletId } = await fundedUser(h.app, '100000'));
      await fund(user, walletId, '1000');
      for (const [type, params] of [
        ['spend_cap_daily', { limit: '500' }],
        ['spend_cap_total', { limit: '900' }],
      ] as const) {
        await user.api.post(`/api/v1/agent-wallets/${walletId}/policies`, { type, params });
      }
      key = await createKey(user, walletId);
    });
    after(() => h.close());

    const statementsOf = async (run: () => Promise<unknown>) => {
      const before = h.services.store.statementCount();
      await run();
      return h.services.store.statementCount() - before;
    };
    // Without Redis, PostgreSQL looks an API key up on every request (no cache it could keep exact).
    const keyLookups = target.name === 'postgres' ? 1 : 0;

    test('check_balance is one query, caps included', async () => {
      await tool(h.app, key, 'check_balance'); // warm the key cache
      let reply: Awaited<ReturnType<typeof tool>> | undefined;
      const count = await statementsOf(async () => {
        reply = await tool(h.app, key, 'check_balance');
      });
      assert.equal(reply?.status, 200);
      assert.equal(reply?.body.data.dailyCapRemaining, '500.000000');
      assert.equal(count, 1 + keyLookups);
    });

    test('a page of 100 agent wallets takes at most 5 statements, the session check included', async () => {
      for (let i = 0; i < 100; i += 1) {
        const made = await user.api.post('/api/v1/agent-wallets', { label: `w${i}` });
        assert.equal(made.status, 201);
      }
      let reply: Awaited<ReturnType<TestUser['api']['get']>> | undefined;
      const count = await statementsOf(async () => {
        reply = await user.api.get('/api/v1/agent-wallets?limit=100');
      });
      assert.equal(reply?.status, 200);
      assert.equal(reply?.body.data.items.length, 100);
      assert.equal(reply?.body.data.total, 101);
      assert.ok(count <= 5, `${count} statements`);
    });

    test("a payment's statements do not grow with the wallet's history", async () => {
      const pay = () => tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '0.01' });
      assert.equal((await pay()).status, 200); // the first payment makes the wallet's 24-hour window
      h.clock.advanceMs(1_000);
      const first = await statementsOf(pay);
      // An hour apart: by the end, 26 of these have left the daily window (taken off as they leave it).
      for (let i = 0; i < 50; i += 1) {
        h.clock.advanceMs(3_600_000);
        assert.equal((await pay()).status, 200);
      }
      h.clock.advanceMs(1_000);
      const later = await statementsOf(pay);
      assert.equal(later, first);
      const view = await tool(h.app, key, 'check_balance');
      assert.equal(view.body.data.totalCapRemaining, '899.470000', 'the running total counts every payment');
      assert.equal(view.body.data.dailyCapRemaining, '499.750000', 'the last 24 hours: 25 payments');
    });

    test("a person's fund: its write, its audit line written ahead and its seal", async () => {
      await fund(user, walletId, '1'); // the organization's chain has its head
      const count = await statementsOf(() => fund(user, walletId, '1'));
      // PostgreSQL: the line 4 (BEGIN, the chain's head locked, the line inserted with the statement that moves the
      // head, COMMIT) and its seal 1 (one statement, no transaction) beside the write's own; 16 when the line and
      // its seal were transactions of their own with the head inserted each time. SQLite: in the writer's batches.
      assert.ok(count <= (target.name === 'postgres' ? 12 : 20), `${count} statements`);
    });
  });
}
