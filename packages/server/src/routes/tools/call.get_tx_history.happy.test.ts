import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  createPolicy,
  EXTERNAL,
  expectToolError,
  holdPayment,
  TOOL_TX_KEYS,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { assertAmount, assertIso, assertKeys, eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

const ids = (data: { transactions: Array<{ id: string }> }) => data.transactions.map((t) => t.id);

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/get_tx_history happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_history_happy');
    });
    after(() => h.close());

    test('{transactions: [{id, type, toAddress, amount, memo, status, txHash, rail, createdAt}], total, page, limit}', async () => {
      const agent = await agentWithKey(h);
      h.clock.advanceSeconds(1);
      const paid = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '2.5', memo: 'coffee' }),
        'send_payment',
      );
      const data = toolOk(await tool(h, agent.key, 'get_tx_history'), 'get_tx_history');
      assertKeys(data, ['transactions', 'total', 'page', 'limit']);
      assert.deepEqual([data.total, data.page, data.limit], [2, 1, 20]);
      for (const tx of data.transactions) {
        assertKeys(tx, TOOL_TX_KEYS);
        assert.match(tx.id, /^tx_/);
        assertAmount(tx.amount);
        assertIso(tx.createdAt);
      }
      const [payment, fund] = data.transactions;
      assert.deepEqual(payment, {
        id: paid.txId,
        type: 'payment',
        toAddress: eip55(EXTERNAL),
        amount: '2.500000',
        memo: 'coffee',
        status: 'completed',
        txHash: null,
        rail: 'sandbox',
        resource: null,
        createdAt: new Date(h.clock.nowMs()).toISOString(),
      });
      assert.equal(fund.type, 'fund');
      assert.equal(fund.amount, '100.000000');
      assert.equal(fund.status, 'completed');
    });

    test('payments received from another wallet show as incoming; denied and held ones show too', async () => {
      const payer = await agentWithKey(h);
      const payee = await agentWithKey(h);
      toolOk(
        await tool(h, payer.key, 'send_payment', { toAddress: payee.address, amount: '7', memo: 'hi' }),
        'send_payment',
      );
      const incoming = toolOk(await tool(h, payee.key, 'get_tx_history'), 'get_tx_history').transactions[0];
      assert.equal(incoming.type, 'incoming');
      assert.equal(incoming.amount, '7.000000');
      assert.equal(incoming.status, 'completed');
      assert.equal(incoming.rail, 'internal');

      await createPolicy(payee.user, payee.walletId, 'spend_cap_per_tx', { limit: '1' });
      const denied = await tool(h, payee.key, 'send_payment', { toAddress: EXTERNAL, amount: '2' });
      expectToolError(denied, 'send_payment', 422, 'POLICY_DENIED');
      const held = await holdPayment(h, payee, '3');
      const history = toolOk(await tool(h, payee.key, 'get_tx_history'), 'get_tx_history');
      assert.deepEqual(
        history.transactions.slice(0, 2).map((t: { id: string; status: string }) => [t.id, t.status]),
        [
          [held, 'pending'],
          [denied.body.data.txId, 'rejected'],
        ],
      );
    });

    test('pagination: page and limit, newest first', async () => {
      const agent = await agentWithKey(h);
      const paid: string[] = [];
      for (let i = 1; i <= 5; i += 1) {
        paid.push(
          toolOk(
            await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: `${i}` }),
            'send_payment',
          ).txId,
        );
      }
      const page1 = toolOk(await tool(h, agent.key, 'get_tx_history', { limit: 2 }), 'get_tx_history');
      assert.deepEqual(ids(page1), [paid[4], paid[3]]);
      assert.deepEqual([page1.total, page1.page, page1.limit], [6, 1, 2]);
      const page3 = toolOk(
        await tool(h, agent.key, 'get_tx_history', { limit: 2, page: 3 }),
        'get_tx_history',
      );
      assert.equal(page3.transactions.length, 2);
      assert.equal(page3.transactions[0].id, paid[0]);
      assert.equal(page3.transactions[1].type, 'fund');
      const beyond = toolOk(
        await tool(h, agent.key, 'get_tx_history', { limit: 100, page: 2 }),
        'get_tx_history',
      );
      assert.deepEqual([beyond.transactions, beyond.total, beyond.limit], [[], 6, 100]);
      const one = toolOk(await tool(h, agent.key, 'get_tx_history', { limit: 1 }), 'get_tx_history');
      assert.deepEqual(ids(one), [paid[4]]);
    });

    test('status filters, with totals of the filtered set', async () => {
      const agent = await agentWithKey(h);
      await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '10' });
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' }), 'send_payment');
      await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '11' });
      const pending = await holdPayment(h, agent, '12');
      const expiring = await holdPayment(h, agent, '13');
      const byStatus = async (status: string) =>
        toolOk(await tool(h, agent.key, 'get_tx_history', { status }), 'get_tx_history');
      assert.equal((await byStatus('completed')).total, 2); // the funding and the payment
      assert.equal((await byStatus('rejected')).total, 1);
      assert.deepEqual(ids(await byStatus('pending')), [expiring, pending]);
      assert.equal((await byStatus('failed')).total, 0);
      assert.equal((await byStatus('processing')).total, 0);
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/transactions/${pending}/approve`);
      h.clock.advanceSeconds(72 * 3600);
      await h.services.approvals.expireDue();
      assert.deepEqual(ids(await byStatus('expired')), [expiring]);
      assert.equal((await byStatus('pending')).total, 0);
      const completed = await byStatus('completed');
      assert.equal(completed.total, 3);
      for (const tx of completed.transactions) assert.equal(tx.status, 'completed');
    });

    test('bare params and {params} give the same answer', async () => {
      const agent = await agentWithKey(h);
      const wrapped = toolOk(
        await tool(h, agent.key, 'get_tx_history', { limit: 1, status: 'completed' }),
        'get_tx_history',
      );
      const bare = toolOk(
        await call(
          h.app,
          'POST',
          '/mcp/v1/tools/get_tx_history',
          { limit: 1, status: 'completed' },
          { token: agent.key },
        ),
        'get_tx_history',
      );
      assert.deepEqual(bare, wrapped);
      assert.equal(bare.limit, 1);
    });

    test('null for page, limit or status means absent: the defaults, every status', async () => {
      const agent = await agentWithKey(h);
      const nulls = toolOk(
        await tool(h, agent.key, 'get_tx_history', { page: null, limit: null, status: null }),
        'get_tx_history',
      );
      const omitted = toolOk(await tool(h, agent.key, 'get_tx_history', {}), 'get_tx_history');
      assert.deepEqual(nulls, omitted);
      assert.equal(nulls.page, 1);
      assert.equal(nulls.limit, 20);
    });
  });
}
