// 500 payments race on one wallet through several keys; the balance covers exactly 100 of them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyLedger } from '../src/ledger/verify.ts';
import { balances, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { fundedUser } from './support/http.ts';

for (const target of await storeTargets()) {
  describe(`concurrent payments (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'pay_race');
    });
    after(() => h.close());

    test('500 concurrent send_payment over 5 keys against a balance for 100: exactly 100 complete', async () => {
      const { user, walletId } = await fundedUser(h.app, '1000');
      await fund(user, walletId, '100');
      const keys = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => createKey(user, walletId, { label: `k${i}` })),
      );
      const replies = await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          tool(h.app, keys[i % keys.length]!, 'send_payment', {
            toAddress: OUTSIDE_ADDRESS,
            amount: '1',
            memo: `#${i}`,
          }),
        ),
      );
      const completed = replies.filter((r) => r.status === 200 && r.body.data.status === 'completed');
      const refused = replies.filter((r) => r.status === 422 && r.body.error.code === 'INSUFFICIENT_BALANCE');
      assert.equal(completed.length, 100);
      assert.equal(refused.length, 400);
      assert.equal(new Set(completed.map((r) => r.body.data.txId)).size, 100);
      assert.deepEqual(await balances(h.app, keys[0]!), { balance: '0.000000', heldBalance: '0.000000' });
      const history = await tool(h.app, keys[0]!, 'get_tx_history', { status: 'completed', limit: 100 });
      const payments = history.body.data.transactions.filter((t: { type: string }) => t.type === 'payment');
      assert.equal(history.body.data.total, 101, '100 payments and the funding');
      assert.equal(payments.length, 100);
      const report = await verifyLedger(h.services.store);
      assert.deepEqual(report.problems, []);
    });

    test('two wallets paying each other at once settle both ways without deadlock or loss', async () => {
      const a = await fundedUser(h.app, '1000');
      const b = await fundedUser(h.app, '1000');
      await fund(a.user, a.walletId, '100');
      await fund(b.user, b.walletId, '100');
      const keyA = await createKey(a.user, a.walletId);
      const keyB = await createKey(b.user, b.walletId);
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          i % 2 === 0
            ? tool(h.app, keyA, 'send_payment', { toAddress: b.wallet.address, amount: '3' })
            : tool(h.app, keyB, 'send_payment', { toAddress: a.wallet.address, amount: '2' }),
        ),
      );
      assert.ok(
        replies.every((r) => r.status === 200 || r.status === 422),
        'only successes and balance refusals',
      );
      const sent = (from: number) =>
        replies.filter((r, i) => i % 2 === from && r.status === 200).length * (from === 0 ? 3 : 2);
      const finalA = await balances(h.app, keyA);
      const finalB = await balances(h.app, keyB);
      assert.equal(finalA.balance, `${100 - sent(0) + sent(1)}.000000`);
      assert.equal(finalB.balance, `${100 - sent(1) + sent(0)}.000000`);
      assert.deepEqual((await verifyLedger(h.services.store)).problems, []);
    });
  });
}
