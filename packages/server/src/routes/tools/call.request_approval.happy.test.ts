import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  APPROVAL_KEYS,
  agentWithKey,
  createPolicy,
  EXTERNAL,
  EXTERNAL_2,
  pendingUrl,
  tool,
  toolOk,
  walletOf,
} from '../../../test/support/agent.ts';
import { assertKeys, assertLedgerOk, eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/request_approval happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_approval_happy');
    });
    after(() => h.close());

    test('{txId, status: "pending", message}; the amount is held and the owner sees the request', async () => {
      const agent = await agentWithKey(h);
      const reply = await tool(h, agent.key, 'request_approval', {
        toAddress: EXTERNAL,
        amount: '45.5',
        memo: 'server rental',
        reason: 'the monthly bill is due',
      });
      const data = toolOk(reply, 'request_approval');
      assertKeys(data, APPROVAL_KEYS);
      assert.match(data.txId, /^tx_/);
      assert.equal(data.status, 'pending');
      assert.equal(typeof data.message, 'string');
      assert.ok(data.message.length > 0);
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['54.500000', '45.500000']);
      const pending = await agent.user.api.get(pendingUrl(agent.walletId));
      const tx = pending.body.data.transactions[0];
      assert.deepEqual(
        [tx.id, tx.status, tx.amount, tx.toAddress, tx.memo, tx.reason, tx.violations],
        [
          data.txId,
          'pending',
          '45.500000',
          eip55(EXTERNAL),
          'server rental',
          'the monthly bill is due',
          null,
        ],
      );
      assert.equal(tx.expiresAt, new Date(h.clock.nowMs() + 72 * 3600 * 1000).toISOString());
      const history = toolOk(
        await tool(h, agent.key, 'get_tx_history', { status: 'pending' }),
        'get_tx_history',
      );
      assert.equal(history.transactions[0].id, data.txId);
      await assertLedgerOk(h);
    });

    test('not gated by spending policies: the policies it would break are listed for the owner', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const allow = await createPolicy(agent.user, agent.walletId, 'address_allowlist', {
        addresses: [EXTERNAL],
      });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_total', { limit: '100' });
      const data = toolOk(
        await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL_2, amount: '50' }),
        'request_approval',
      );
      assert.equal(data.status, 'pending');
      const pending = await agent.user.api.get(pendingUrl(agent.walletId));
      assert.deepEqual(
        pending.body.data.transactions[0].violations.map((v: { policyId: string }) => v.policyId),
        [cap.id, allow.id],
      );
    });

    test('holds add up; a second request can take the rest of the balance', async () => {
      const agent = await agentWithKey(h);
      toolOk(
        await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount: '60' }),
        'request_approval',
      );
      toolOk(
        await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount: '40' }),
        'request_approval',
      );
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['0.000000', '100.000000']);
    });

    test('a write-only key may request; bare params work; an internal recipient is allowed', async () => {
      const agent = await agentWithKey(h, { scopes: ['write'] });
      const payee = await agentWithKey(h, { fund: '0' });
      const reply = await call(
        h.app,
        'POST',
        '/mcp/v1/tools/request_approval',
        { toAddress: payee.address, amount: '1', reason: 'r'.repeat(500), memo: 'm'.repeat(500) },
        { token: agent.key },
      );
      const data = toolOk(reply, 'request_approval');
      const approved = await agent.user.api.post(
        `/api/v1/agent-wallets/${agent.walletId}/transactions/${data.txId}/approve`,
      );
      assert.equal(approved.body.data.status, 'completed');
      assert.equal((await walletOf(payee.user, payee.walletId)).balance, '1.000000');
    });

    test('an idempotent retry answers the same pending request and holds once', async () => {
      const agent = await agentWithKey(h);
      const params = { toAddress: EXTERNAL, amount: '10', reason: 'r1', idempotencyKey: 'req-1' };
      const first = toolOk(await tool(h, agent.key, 'request_approval', params), 'request_approval');
      const again = toolOk(await tool(h, agent.key, 'request_approval', params), 'request_approval');
      assert.deepEqual(again, first);
      assert.equal((await walletOf(agent.user, agent.walletId)).heldBalance, '10.000000');
    });
  });
}
