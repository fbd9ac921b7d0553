import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  createPolicy,
  decisionUrl,
  EXTERNAL,
  holdPayment,
  masterBalanceOf,
  tool,
  toolOk,
  walletOf,
} from '../../../test/support/agent.ts';
import { assertLedgerOk, assertTransactionShape, eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

const TTL_SECONDS = 72 * 3600;

for (const target of await storeTargets()) {
  describe(`POST .../transactions/:id/approve happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_approve_happy');
    });
    after(() => h.close());

    test('executes the held payment: 200 with the transaction completed, hold back to 0', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '30', { memo: 'invoice 7' });
      assert.deepEqual(
        [
          (await walletOf(agent.user, agent.walletId)).balance,
          (await walletOf(agent.user, agent.walletId)).heldBalance,
        ],
        ['70.000000', '30.000000'],
      );
      h.clock.advanceSeconds(10);
      const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'));
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      const tx = reply.body.data;
      assertTransactionShape(tx);
      assert.equal(tx.id, txId);
      assert.equal(tx.status, 'completed');
      assert.equal(tx.amount, '30.000000');
      assert.equal(tx.toAddress, eip55(EXTERNAL));
      assert.equal(tx.rail, 'sandbox');
      assert.equal(tx.txHash, null);
      assert.equal(tx.memo, 'invoice 7');
      assert.equal(tx.updatedAt, new Date(h.clock.nowMs()).toISOString());
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['70.000000', '0.000000']);
      const history = toolOk(
        await tool(h, agent.key, 'get_tx_history', { status: 'completed' }),
        'get_tx_history',
      );
      assert.ok(history.transactions.some((t: { id: string }) => t.id === txId));
      const detail = await agent.user.api.get(`/api/v1/agent-wallets/${agent.walletId}/transactions/${txId}`);
      assert.ok(
        detail.body.data.events.some((e: { actor: string }) => e.actor === `user:${agent.user.id}`),
        'the audit trail names the approving user',
      );
      await assertLedgerOk(h);
    });

    test("an internal recipient is credited: another user's agent wallet gets an incoming transaction", async () => {
      const payer = await agentWithKey(h);
      const payee = await agentWithKey(h, { fund: '0' });
      const reply = await tool(h, payer.key, 'request_approval', {
        toAddress: payee.address,
        amount: '12.5',
      });
      const txId = toolOk(reply, 'request_approval').txId;
      const approved = await payer.user.api.post(decisionUrl(payer.walletId, txId, 'approve'));
      assert.equal(approved.status, 200, approved.raw);
      assert.equal(approved.body.data.status, 'completed');
      assert.equal(approved.body.data.rail, 'internal');
      assert.equal((await walletOf(payee.user, payee.walletId)).balance, '12.500000');
      const incoming = await payee.user.api.get(
        `/api/v1/agent-wallets/${payee.walletId}/transactions?status=completed`,
      );
      const tx = incoming.body.data.transactions.find((t: { type: string }) => t.type === 'incoming');
      assert.ok(tx, incoming.raw);
      assert.equal(tx.amount, '12.500000');
      assert.equal(tx.rail, 'internal');
      await assertLedgerOk(h);
    });

    test("a payment to the owner's master wallet lands as an internal deposit", async () => {
      const agent = await agentWithKey(h);
      const master = await agent.user.api.get('/api/v1/wallet');
      const before = await masterBalanceOf(agent.user);
      const reply = await tool(h, agent.key, 'request_approval', {
        toAddress: master.body.data.address,
        amount: '5',
      });
      const txId = toolOk(reply, 'request_approval').txId;
      const approved = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'), {});
      assert.equal(approved.status, 200, approved.raw);
      assert.equal(approved.body.data.status, 'completed');
      assert.equal(await masterBalanceOf(agent.user), (Number(before) + 5).toFixed(6));
      const deposits = await agent.user.api.get('/api/v1/wallet/deposits');
      assert.equal(deposits.body.data.items[0].rail, 'internal');
      assert.equal(deposits.body.data.items[0].amount, '5.000000');
    });

    test('policies are not evaluated again: the owner may approve what they would deny', async () => {
      const agent = await agentWithKey(h);
      await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      await createPolicy(agent.user, agent.walletId, 'address_allowlist', {
        addresses: [`0x${'12'.repeat(20)}`],
      });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_total', { limit: '2' });
      const txId = await holdPayment(h, agent, '40');
      const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'));
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.status, 'completed');
      assert.equal(reply.body.data.violations.length, 3);
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '60.000000');
    });

    test('approval works up to 1 s before the expiry, and on a frozen wallet', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '3');
      assert.equal((await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/freeze`)).status, 200);
      const start = h.clock.nowMs();
      h.clock.advanceSeconds(TTL_SECONDS - 1);
      await h.services.approvals.expireDue();
      const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'));
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.status, 'completed');
      h.clock.setMs(start + TTL_SECONDS * 1000);
    });
  });
}
