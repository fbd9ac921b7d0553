import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertAgentWalletShape,
  assertKeys,
  assertLedgerOk,
  assertTransactionShape,
  balancesOf,
  storeState,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

async function fundedAgent(h: Harness, master: string, agent: string) {
  const funded = await fundedUser(h.app, master);
  const reply = await funded.user.api.post(`/api/v1/agent-wallets/${funded.walletId}/fund`, {
    amount: agent,
  });
  assert.equal(reply.status, 200, reply.raw);
  return funded;
}

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/withdraw happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_withdraw_happy');
    });
    after(() => h.close());

    test('moves agent -> master: 200 {transaction, wallet, masterBalance}', async () => {
      const { user, walletId } = await fundedAgent(h, '100', '40');
      const master = await user.api.get('/api/v1/wallet');
      h.clock.advanceSeconds(7);
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '15.25' });
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, ['transaction', 'wallet', 'masterBalance']);
      const { transaction, wallet, masterBalance } = reply.body.data;
      assertTransactionShape(transaction);
      const now = new Date(h.clock.nowMs()).toISOString();
      assert.equal(transaction.type, 'withdraw');
      assert.equal(transaction.status, 'completed');
      assert.equal(transaction.amount, '15.250000');
      assert.equal(transaction.walletId, walletId);
      assert.equal(transaction.toAddress, master.body.data.address);
      assert.equal(transaction.rail, 'internal');
      assert.equal(transaction.txHash, null);
      assert.equal(transaction.initiatedBy, `user:${user.id}`);
      assert.equal(transaction.createdAt, now);
      assertAgentWalletShape(wallet);
      assert.equal(wallet.balance, '24.750000');
      assert.equal(masterBalance, '75.250000');
      assert.deepEqual(await balancesOf(user, walletId), { master: '75.250000', agent: '24.750000' });
      await assertLedgerOk(h);
    });

    test('the whole agent balance can be withdrawn, down to the micro-unit', async () => {
      const { user, walletId } = await fundedAgent(h, '5', '3.000001');
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '3.000001' });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.wallet.balance, '0.000000');
      assert.deepEqual(await balancesOf(user, walletId), { master: '5.000000', agent: '0.000000' });
    });

    test('Idempotency-Key replays the first result; another amount is 409; nothing moves twice', async () => {
      const { user, walletId } = await fundedAgent(h, '100', '50');
      const url = `/api/v1/agent-wallets/${walletId}/withdraw`;
      const headers = { 'idempotency-key': 'withdraw-once' };
      const first = await user.api.post(url, { amount: '20' }, { headers });
      assert.equal(first.status, 200, first.raw);
      const state = await storeState(h);
      const again = await user.api.post(url, { amount: '20' }, { headers });
      assert.deepEqual(again.body, first.body);
      const viaBody = await user.api.post(url, { amount: '20.0', idempotencyKey: 'withdraw-once' });
      assert.deepEqual(viaBody.body, first.body);
      expectError(await user.api.post(url, { amount: '21' }, { headers }), 409, 'IDEMPOTENCY_CONFLICT');
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '20' }, { headers }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      assert.deepEqual(await storeState(h), state, 'a replay or conflict moved money');
      assert.deepEqual(await balancesOf(user, walletId), { master: '70.000000', agent: '30.000000' });
    });
  });
}
