import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  createPolicy,
  decisionUrl,
  EXTERNAL,
  expectToolError,
  holdPayment,
  tool,
  toolOk,
  walletOf,
} from '../../../test/support/agent.ts';
import { assertLedgerOk, expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

const TTL_SECONDS = 72 * 3600;

for (const target of await storeTargets()) {
  describe(`POST .../transactions/:id/approve error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_approve_error');
    });
    after(() => h.close());

    test('approving twice: the second is a 409 INVALID_STATE and pays nothing more', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '10');
      assert.equal((await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'))).status, 200);
      const state = await agentState(h);
      expectError(
        await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve')),
        409,
        'INVALID_STATE',
      );
      await assertAgentStateUnchanged(h, state, 'a second approval');
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '90.000000');
    });

    test('a rejected, policy-denied or directly completed payment is a 409 INVALID_STATE', async () => {
      const agent = await agentWithKey(h);
      const rejected = await holdPayment(h, agent, '1');
      await agent.user.api.post(decisionUrl(agent.walletId, rejected, 'reject'));
      const completed = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' }),
        'send_payment',
      );
      await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const denied = await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '2' });
      expectToolError(denied, 'send_payment', 422, 'POLICY_DENIED');
      const state = await agentState(h);
      for (const txId of [rejected, completed.txId, denied.body.data.txId]) {
        expectError(
          await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve')),
          409,
          'INVALID_STATE',
        );
      }
      await assertAgentStateUnchanged(h, state, 'approving a decided payment');
    });

    test('an approval past its expiry (72 h) is a 409 INVALID_STATE: the payment is expired, the hold released', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '25');
      h.clock.advanceSeconds(TTL_SECONDS);
      const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'));
      expectError(reply, 409, 'INVALID_STATE');
      assert.match(reply.body.error.message, /expired/);
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['100.000000', '0.000000']);
      const tx = await agent.user.api.get(`/api/v1/agent-wallets/${agent.walletId}/transactions/${txId}`);
      assert.equal(tx.body.data.status, 'expired');
      expectError(
        await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve')),
        409,
        'INVALID_STATE',
      );
      await assertLedgerOk(h);
    });

    test('after the expiry sweep, approve is a 409 INVALID_STATE and nothing moves', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '25');
      h.clock.advanceSeconds(TTL_SECONDS + 60);
      await h.services.approvals.expireDue(); // the background sweep may have run first
      const state = await agentState(h);
      expectError(
        await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve')),
        409,
        'INVALID_STATE',
      );
      await assertAgentStateUnchanged(h, state, 'approving an expired payment');
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '100.000000');
    });

    test('unknown ids are a 404 NOT_FOUND, also a payment addressed through another of the user’s wallets', async () => {
      const agent = await agentWithKey(h);
      const other = await addAgentWallet(agent.user);
      const txId = await holdPayment(h, agent, '5');
      const state = await agentState(h);
      expectError(
        await agent.user.api.post(decisionUrl(agent.walletId, 'tx_nope', 'approve')),
        404,
        'NOT_FOUND',
      );
      expectError(await agent.user.api.post(decisionUrl('wal_nope', txId, 'approve')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.post(decisionUrl(other.id, txId, 'approve')), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, 'an unknown id');
    });

    test('a body with fields is a 400 and approves nothing', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '5');
      const state = await agentState(h);
      expectValidation(
        await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'), { amount: '1' }),
        'amount',
      );
      expectValidation(
        await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'), { toAddress: EXTERNAL }),
        'toAddress',
      );
      expectError(
        await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve'), '[1]'),
        400,
        'VALIDATION_ERROR',
      );
      await assertAgentStateUnchanged(h, state, 'a bad body');
    });
  });
}
