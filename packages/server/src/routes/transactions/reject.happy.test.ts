import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  decisionUrl,
  holdPayment,
  pendingUrl,
  tool,
  toolOk,
  walletOf,
} from '../../../test/support/agent.ts';
import { assertLedgerOk, assertTransactionShape } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

const TTL_SECONDS = 72 * 3600;

for (const target of await storeTargets()) {
  describe(`POST .../transactions/:id/reject happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_reject_happy');
    });
    after(() => h.close());

    test('releases the hold: 200 with the transaction rejected and the reason', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '60');
      h.clock.advanceSeconds(3);
      const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'reject'), {
        reason: 'not this vendor',
      });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assertTransactionShape(reply.body.data);
      assert.equal(reply.body.data.id, txId);
      assert.equal(reply.body.data.status, 'rejected');
      assert.equal(reply.body.data.rejectionReason, 'not this vendor');
      assert.equal(reply.body.data.updatedAt, new Date(h.clock.nowMs()).toISOString());
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['100.000000', '0.000000']);
      assert.equal((await agent.user.api.get(pendingUrl(agent.walletId))).body.data.total, 0);
      const history = toolOk(
        await tool(h, agent.key, 'get_tx_history', { status: 'rejected' }),
        'get_tx_history',
      );
      assert.deepEqual(
        history.transactions.map((t: { id: string }) => t.id),
        [txId],
      );
      await assertLedgerOk(h);
    });

    test('without a body, or with an empty one, the rejection carries a default reason', async () => {
      const agent = await agentWithKey(h);
      for (const body of [undefined, {}]) {
        const txId = await holdPayment(h, agent, '1');
        const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'reject'), body);
        assert.equal(reply.status, 200, reply.raw);
        assert.equal(reply.body.data.status, 'rejected');
        assert.equal(typeof reply.body.data.rejectionReason, 'string');
        assert.ok(reply.body.data.rejectionReason.length > 0);
      }
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '100.000000');
    });

    test('a 500-character reason; the owner can reject on a frozen wallet', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '2');
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/freeze`);
      const reason = 'r'.repeat(500);
      const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'reject'), { reason });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.rejectionReason, reason);
    });

    test('an unanswered approval expires after 72 h: status expired, hold released', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '33');
      const start = h.clock.nowMs();
      h.clock.advanceSeconds(TTL_SECONDS - 1);
      await h.services.approvals.expireDue();
      assert.equal((await walletOf(agent.user, agent.walletId)).heldBalance, '33.000000');
      h.clock.advanceSeconds(1);
      await h.services.approvals.expireDue(); // the background sweep may have run first
      const tx = await agent.user.api.get(`/api/v1/agent-wallets/${agent.walletId}/transactions/${txId}`);
      assert.equal(tx.body.data.status, 'expired');
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['100.000000', '0.000000']);
      await assertLedgerOk(h);
      h.clock.setMs(start + TTL_SECONDS * 1000);
    });
  });
}
