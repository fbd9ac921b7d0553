import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  createPolicy,
  decisionUrl,
  EXTERNAL,
  holdPayment,
  pendingUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { assertKeys, assertTransactionShape, eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

const TTL_MS = 72 * 3600 * 1000;

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/transactions/pending happy (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_pending_happy');
    });
    after(() => h.close());

    test('nothing held: {transactions: [], total: 0, page: 1, limit: 20}', async () => {
      const agent = await agentWithKey(h);
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' }), 'send_payment');
      const reply = await agent.user.api.get(pendingUrl(agent.walletId));
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, {
        success: true,
        data: { transactions: [], total: 0, page: 1, limit: 20 },
      });
    });

    test('held payments only, newest first, with the policies each would violate', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '5' });
      await createPolicy(agent.user, agent.walletId, 'require_approval_above', { amount: '2' });
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' }), 'send_payment');
      const byThreshold = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '3', memo: 'threshold' }),
        'send_payment',
      );
      assert.equal(byThreshold.status, 'pending');
      h.clock.advanceSeconds(1);
      const requested = await holdPayment(h, agent, '8', { memo: 'over cap', reason: 'one big invoice' });
      const reply = await agent.user.api.get(pendingUrl(agent.walletId));
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, ['transactions', 'total', 'page', 'limit']);
      assert.equal(reply.body.data.total, 2);
      const [newest, oldest] = reply.body.data.transactions;
      for (const tx of reply.body.data.transactions) assertTransactionShape(tx);
      assert.equal(newest.id, requested);
      assert.equal(oldest.id, byThreshold.txId);
      assert.deepEqual(
        {
          status: newest.status,
          type: newest.type,
          amount: newest.amount,
          toAddress: newest.toAddress,
          memo: newest.memo,
          reason: newest.reason,
          walletId: newest.walletId,
          expiresAt: newest.expiresAt,
          initiatedBy: newest.initiatedBy,
        },
        {
          status: 'pending',
          type: 'payment',
          amount: '8.000000',
          toAddress: eip55(EXTERNAL),
          memo: 'over cap',
          reason: 'one big invoice',
          walletId: agent.walletId,
          expiresAt: new Date(h.clock.nowMs() + TTL_MS).toISOString(),
          initiatedBy: `key:${agent.keyId}`,
        },
      );
      assert.equal(newest.violations.length, 1);
      assert.equal(newest.violations[0].policyId, cap.id);
      assert.equal(newest.violations[0].policyType, 'spend_cap_per_tx');
      assert.equal(typeof newest.violations[0].reason, 'string');
      assert.equal(oldest.violations, null);
    });

    test('a decided or expired payment leaves the list', async () => {
      const agent = await agentWithKey(h);
      const a = await holdPayment(h, agent, '1');
      const b = await holdPayment(h, agent, '2');
      const c = await holdPayment(h, agent, '3');
      assert.equal((await agent.user.api.post(decisionUrl(agent.walletId, a, 'approve'))).status, 200);
      assert.equal((await agent.user.api.post(decisionUrl(agent.walletId, b, 'reject'))).status, 200);
      let reply = await agent.user.api.get(pendingUrl(agent.walletId));
      assert.deepEqual(
        reply.body.data.transactions.map((t: { id: string }) => t.id),
        [c],
      );
      const start = h.clock.nowMs();
      h.clock.advanceMs(TTL_MS);
      await h.services.approvals.expireDue();
      reply = await agent.user.api.get(pendingUrl(agent.walletId));
      assert.equal(reply.body.data.total, 0);
      h.clock.setMs(start + TTL_MS);
    });

    test('pagination: page and limit', async () => {
      const agent = await agentWithKey(h);
      const ids: string[] = [];
      for (let i = 1; i <= 5; i += 1) ids.push(await holdPayment(h, agent, String(i)));
      const reply = await agent.user.api.get(`${pendingUrl(agent.walletId)}?page=2&limit=2`);
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(
        reply.body.data.transactions.map((t: { id: string }) => t.id),
        [ids[2], ids[1]],
      );
      assert.deepEqual([reply.body.data.total, reply.body.data.page, reply.body.data.limit], [5, 2, 2]);
    });
  });
}
