import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertIso,
  assertKeys,
  assertTransactionShape,
  TRANSACTION_KEYS,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id/transactions/:txId happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_get_happy');
    });
    after(() => h.close());

    test('answers the transaction as listed, plus its audit trail in `events`', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      h.clock.advanceSeconds(42);
      const fund = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '12.345678' });
      const txId: string = fund.body.data.transaction.id;
      const reply = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/${txId}`);
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, [...TRANSACTION_KEYS, 'events']);
      const { events, ...transaction } = reply.body.data;
      assertTransactionShape(transaction);
      assert.deepEqual(transaction, fund.body.data.transaction);
      const listed = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions`);
      assert.deepEqual(listed.body.data.transactions[0], transaction);
      assertIso(events[0].at);
      assert.deepEqual(events, [
        {
          status: 'completed',
          actor: `user:${user.id}`,
          note: null,
          at: new Date(h.clock.nowMs()).toISOString(),
        },
      ]);
    });

    test('a withdrawal too', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '10' });
      const withdraw = await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '4' });
      const reply = await user.api.get(
        `/api/v1/agent-wallets/${walletId}/transactions/${withdraw.body.data.transaction.id}`,
      );
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.type, 'withdraw');
      assert.equal(reply.body.data.amount, '4.000000');
      assert.equal(reply.body.data.events.length, 1);
      assert.equal(reply.body.data.events[0].status, 'completed');
    });
  });
}
