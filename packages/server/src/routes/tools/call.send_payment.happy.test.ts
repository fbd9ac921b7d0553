import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  createPolicy,
  EXTERNAL,
  EXTERNAL_2,
  masterBalanceOf,
  pendingUrl,
  SEND_KEYS,
  tool,
  toolOk,
  walletOf,
} from '../../../test/support/agent.ts';
import { assertKeys, assertLedgerOk, eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/send_payment happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_send_happy');
    });
    after(() => h.close());

    test('an outside address settles on the sandbox rail: {txId, status, txHash, amount, toAddress, rejectionReason}', async () => {
      const agent = await agentWithKey(h);
      const reply = await tool(h, agent.key, 'send_payment', {
        toAddress: EXTERNAL,
        amount: '10.5',
        memo: 'api credits',
      });
      const data = toolOk(reply, 'send_payment');
      assertKeys(data, SEND_KEYS);
      assert.match(data.txId, /^tx_/);
      assert.deepEqual(
        { ...data, txId: undefined },
        {
          txId: undefined,
          status: 'completed',
          txHash: null,
          amount: '10.500000',
          toAddress: eip55(EXTERNAL),
          rejectionReason: null,
        },
      );
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['89.500000', '0.000000']);
      const tx = await agent.user.api.get(
        `/api/v1/agent-wallets/${agent.walletId}/transactions/${data.txId}`,
      );
      assert.equal(tx.body.data.rail, 'sandbox');
      assert.equal(tx.body.data.memo, 'api credits');
      assert.equal(tx.body.data.initiatedBy, `key:${agent.keyId}`);
      await assertLedgerOk(h);
    });

    test('lower-case, upper-case and checksummed addresses are the same recipient, answered checksummed', async () => {
      const agent = await agentWithKey(h);
      for (const toAddress of [EXTERNAL_2, `0x${EXTERNAL_2.slice(2).toUpperCase()}`, eip55(EXTERNAL_2)]) {
        const data = toolOk(
          await tool(h, agent.key, 'send_payment', { toAddress, amount: '1' }),
          'send_payment',
        );
        assert.equal(data.toAddress, eip55(EXTERNAL_2));
      }
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '97.000000');
    });

    test("another user's agent wallet is paid internally: credited, with an incoming transaction", async () => {
      const payer = await agentWithKey(h);
      const payee = await agentWithKey(h, { fund: '1' });
      const data = toolOk(
        await tool(h, payer.key, 'send_payment', {
          toAddress: payee.address.toLowerCase(),
          amount: '0.000001',
        }),
        'send_payment',
      );
      assert.equal(data.status, 'completed');
      assert.equal(data.toAddress, payee.address);
      assert.equal((await walletOf(payee.user, payee.walletId)).balance, '1.000001');
      assert.equal((await walletOf(payer.user, payer.walletId)).balance, '99.999999');
      const incoming = await payee.user.api.get(`/api/v1/agent-wallets/${payee.walletId}/transactions`);
      const tx = incoming.body.data.transactions[0];
      assert.deepEqual(
        [tx.type, tx.status, tx.amount, tx.rail],
        ['incoming', 'completed', '0.000001', 'internal'],
      );
      const sent = await payer.user.api.get(
        `/api/v1/agent-wallets/${payer.walletId}/transactions/${data.txId}`,
      );
      assert.equal(sent.body.data.rail, 'internal');
      await assertLedgerOk(h);
    });

    test('a master wallet is paid internally: a deposit with rail internal', async () => {
      const agent = await agentWithKey(h);
      const other = await agentWithKey(h);
      const master = await other.user.api.get('/api/v1/wallet');
      const before = await masterBalanceOf(other.user);
      toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: master.body.data.address, amount: '4' }),
        'send_payment',
      );
      assert.equal(await masterBalanceOf(other.user), (Number(before) + 4).toFixed(6));
      const deposits = await other.user.api.get('/api/v1/wallet/deposits');
      assert.deepEqual(
        [deposits.body.data.items[0].rail, deposits.body.data.items[0].amount],
        ['internal', '4.000000'],
      );
    });

    test('the whole balance can be spent; a 500-character memo is kept', async () => {
      const agent = await agentWithKey(h, { fund: '12.75' });
      const memo = 'm'.repeat(500);
      const data = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '12.75', memo }),
        'send_payment',
      );
      assert.equal(data.status, 'completed');
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '0.000000');
      const history = toolOk(await tool(h, agent.key, 'get_tx_history', { limit: 1 }), 'get_tx_history');
      assert.equal(history.transactions[0].memo, memo);
    });

    test('above an approval threshold the payment is held: status pending, amount in heldBalance', async () => {
      const agent = await agentWithKey(h);
      await createPolicy(agent.user, agent.walletId, 'require_approval_above', { amount: '20' });
      const atThreshold = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '20' }),
        'send_payment',
      );
      assert.equal(atThreshold.status, 'completed');
      const data = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '20.000001' }),
        'send_payment',
      );
      assertKeys(data, SEND_KEYS);
      assert.equal(data.status, 'pending');
      assert.equal(data.rejectionReason, null);
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['59.999999', '20.000001']);
      const pending = await agent.user.api.get(pendingUrl(agent.walletId));
      assert.equal(pending.body.data.transactions[0].id, data.txId);
    });

    test('bare params work like {params}', async () => {
      const agent = await agentWithKey(h);
      const reply = await call(
        h.app,
        'POST',
        '/mcp/v1/tools/send_payment',
        { toAddress: EXTERNAL, amount: '3' },
        {
          token: agent.key,
        },
      );
      assert.equal(toolOk(reply, 'send_payment').amount, '3.000000');
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '97.000000');
    });

    test('the same idempotency key and params (param or header) answer the first result: one payment', async () => {
      const agent = await agentWithKey(h);
      const params = { toAddress: EXTERNAL, amount: '5', memo: 'once', idempotencyKey: 'order-1' };
      const first = toolOk(await tool(h, agent.key, 'send_payment', params), 'send_payment');
      const again = toolOk(
        await tool(h, agent.key, 'send_payment', { ...params, toAddress: eip55(EXTERNAL) }),
        'send_payment',
      );
      assert.deepEqual(again, first);
      const viaHeader = await tool(
        h,
        agent.key,
        'send_payment',
        { toAddress: EXTERNAL, amount: '5.000000', memo: 'once' },
        { headers: { 'idempotency-key': 'order-1' } },
      );
      assert.deepEqual(toolOk(viaHeader, 'send_payment'), first);
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '95.000000');
    });

    test('null for an optional param (memo, idempotencyKey) means absent, as models in strict mode send it', async () => {
      const agent = await agentWithKey(h);
      const nulls = { toAddress: EXTERNAL, amount: '1', memo: null, idempotencyKey: null };
      const first = toolOk(await tool(h, agent.key, 'send_payment', nulls), 'send_payment');
      assert.equal(first.status, 'completed');
      const second = toolOk(await tool(h, agent.key, 'send_payment', nulls), 'send_payment');
      assert.notEqual(second.txId, first.txId, 'no key: two payments, as without the fields');
      const history = toolOk(
        await tool(h, agent.key, 'get_tx_history', { status: 'completed' }),
        'get_tx_history',
      );
      const payments = history.transactions.filter((t: { type: string }) => t.type === 'payment');
      assert.deepEqual(
        payments.map((t: { memo: unknown }) => t.memo),
        [null, null],
      );
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '98.000000');
    });
  });
}
