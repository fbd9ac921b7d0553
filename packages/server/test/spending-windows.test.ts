// Kept spending windows (migration 0010), both stores: a window row always equals the sum of the payments it
// covers (verify-ledger checks it, and notices when it does not), a change of status outside a batch (an evm
// payout that failed) moves only the windows the payment is inside of, and a window kept while no policy needed
// it is still exact when a policy needs it again. The caps' decisions across window edges are in
// window-policies.test.ts; random sequences against a model, verified after every step, in ledger.property.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyLedger } from '../src/ledger/verify.ts';
import { setTransactionStatus } from '../src/services/wallets/transactions.ts';
import { addPolicy, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser } from './support/http.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

for (const target of await storeTargets()) {
  describe(`spending windows (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'spending_windows');
    });
    after(() => h.close());

    async function agent() {
      const setup = await fundedUser(h.app, '10000');
      await fund(setup.user, setup.walletId, '1000');
      return { ...setup, key: await createKey(setup.user, setup.walletId) };
    }
    const pay = (key: string, amount: string) =>
      tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount });
    const windowsOf = (walletId: string) =>
      h.services.store.db
        .selectFrom('spending_windows')
        .selectAll()
        .where('wallet_id', '=', walletId)
        .orderBy('span_ms')
        .execute();

    test('a kept window equals its payments, and verify-ledger notices one that does not', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'spend_cap_daily', { limit: '100' });
      await addPolicy(user, walletId, 'tx_count_cap', { count: 100, window: '1h' });
      for (const amount of ['1', '2', '3']) {
        assert.equal((await pay(key, amount)).status, 200);
        h.clock.advanceMs(20 * 60_000);
      }
      const rows = await windowsOf(walletId);
      assert.deepEqual(
        rows.map((r) => [Number(r.span_ms), r.spent_micros, Number(r.payments)]),
        [
          // The last batch ran 40 minutes after the first payment: all three are inside both windows.
          [HOUR_MS, 6_000_000n, 3],
          [DAY_MS, 6_000_000n, 3],
        ],
      );
      assert.deepEqual((await verifyLedger(h.services.store)).problems, []);
      await h.services.store.db
        .updateTable('spending_windows')
        .set((eb) => ({ spent_micros: eb('spent_micros', '+', 1n) }))
        .where('wallet_id', '=', walletId)
        .where('span_ms', '=', BigInt(DAY_MS))
        .execute();
      const broken = await verifyLedger(h.services.store);
      assert.equal(broken.ok, false);
      assert.match(
        broken.problems.join('\n'),
        new RegExp(`wallet ${walletId}: its 24-hour window keeps 6.000001`),
      );
      await h.services.store.db
        .updateTable('spending_windows')
        .set((eb) => ({ spent_micros: eb('spent_micros', '-', 1n) }))
        .where('wallet_id', '=', walletId)
        .where('span_ms', '=', BigInt(DAY_MS))
        .execute();
    });

    test('a payment that fails outside a batch leaves only the windows it is inside of', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'spend_cap_daily', { limit: '100' });
      await addPolicy(user, walletId, 'spend_cap_window', { limit: '100', window: '1h' });
      const early = await pay(key, '10');
      assert.equal(early.status, 200);
      h.clock.advanceMs(2 * HOUR_MS);
      assert.equal((await pay(key, '5')).status, 200); // moves the rows: the 10 has left the hour
      const fail = async (txId: string) => {
        const row = await h.services.store.db
          .selectFrom('transactions')
          .selectAll()
          .where('id', '=', txId)
          .executeTakeFirstOrThrow();
        await h.services.store.db.transaction().execute((trx) =>
          setTransactionStatus(trx, row, {
            status: 'failed',
            actor: 'system',
            note: 'test',
            nowMs: h.clock.nowMs(),
          }),
        );
      };
      await fail(early.body.data.txId);
      const rows = await windowsOf(walletId);
      assert.deepEqual(
        rows.map((r) => [Number(r.span_ms), r.spent_micros, Number(r.payments)]),
        [
          [HOUR_MS, 5_000_000n, 1],
          [DAY_MS, 5_000_000n, 1],
        ],
      );
      const report = await verifyLedger(h.services.store);
      assert.deepEqual(
        report.problems.filter((p) => p.includes('window')),
        [],
      );
    });

    test('a window kept while no policy needed it is exact when one needs it again', async () => {
      const { user, walletId, key } = await agent();
      const policyId = await addPolicy(user, walletId, 'spend_cap_daily', { limit: '10' });
      assert.equal((await pay(key, '6')).status, 200);
      const removed = await user.api.delete(`/api/v1/agent-wallets/${walletId}/policies/${policyId}`);
      assert.equal(removed.status, 200);
      h.clock.advanceMs(HOUR_MS);
      assert.equal((await pay(key, '3')).status, 200); // no cap now, but the row still counts it
      await addPolicy(user, walletId, 'spend_cap_daily', { limit: '10' });
      expectError(await pay(key, '1.000001'), 422, 'POLICY_DENIED');
      assert.equal((await pay(key, '1')).status, 200);
      // A day after the first payment it has left the window: 6 back.
      h.clock.advanceMs(DAY_MS - HOUR_MS);
      assert.equal((await pay(key, '6')).status, 200);
      expectError(await pay(key, '0.000001'), 422, 'POLICY_DENIED');
      assert.deepEqual((await verifyLedger(h.services.store)).problems, []);
    });

    test('check_balance reads a kept window at its own time: what left it since, and a clock behind the row', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'spend_cap_daily', { limit: '100' });
      assert.equal((await pay(key, '7')).status, 200);
      h.clock.advanceMs(12 * HOUR_MS);
      assert.equal((await pay(key, '2')).status, 200); // the row's time: 12 hours after the 7
      const daily = async () => (await tool(h.app, key, 'check_balance')).body.data.dailyCapRemaining;
      assert.equal(await daily(), '91.000000');
      h.clock.advanceMs(12 * HOUR_MS); // the 7 leaves the window; no batch has moved the row since
      assert.equal(await daily(), '98.000000');
      const view = await user.api.get(`/api/v1/agent-wallets/${walletId}`);
      assert.equal(view.body.data.dailyCapRemaining, '98.000000');
      h.clock.advanceMs(-13 * HOUR_MS); // behind the row (another instance's clock): summed over the window
      assert.equal(await daily(), '91.000000');
      h.clock.advanceMs(13 * HOUR_MS);
    });
  });
}
