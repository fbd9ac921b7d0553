import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  decisionUrl,
  EXTERNAL,
  expectNulHandled,
  holdPayment,
  NUL_TEXT,
  tool,
  toolOk,
  walletOf,
} from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST .../transactions/:id/reject error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_reject_error');
    });
    after(() => h.close());

    test('rejecting twice, or after an approval, is a 409 INVALID_STATE', async () => {
      const agent = await agentWithKey(h);
      const rejected = await holdPayment(h, agent, '10');
      const approved = await holdPayment(h, agent, '20');
      assert.equal((await agent.user.api.post(decisionUrl(agent.walletId, rejected, 'reject'))).status, 200);
      assert.equal((await agent.user.api.post(decisionUrl(agent.walletId, approved, 'approve'))).status, 200);
      const direct = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' }),
        'send_payment',
      );
      const state = await agentState(h);
      for (const txId of [rejected, approved, direct.txId]) {
        expectError(
          await agent.user.api.post(decisionUrl(agent.walletId, txId, 'reject')),
          409,
          'INVALID_STATE',
        );
        expectError(
          await agent.user.api.post(decisionUrl(agent.walletId, txId, 'approve')),
          409,
          'INVALID_STATE',
        );
      }
      await assertAgentStateUnchanged(h, state, 'deciding a decided payment');
      assert.equal((await walletOf(agent.user, agent.walletId)).balance, '79.000000');
    });

    test('a rejection past the expiry is a 409 INVALID_STATE; the payment is expired', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '10');
      h.clock.advanceSeconds(72 * 3600);
      expectError(
        await agent.user.api.post(decisionUrl(agent.walletId, txId, 'reject')),
        409,
        'INVALID_STATE',
      );
      const tx = await agent.user.api.get(`/api/v1/agent-wallets/${agent.walletId}/transactions/${txId}`);
      assert.equal(tx.body.data.status, 'expired');
      assert.equal((await walletOf(agent.user, agent.walletId)).heldBalance, '0.000000');
    });

    test('a bad reason or an unknown field is a 400 and releases nothing', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '10');
      const state = await agentState(h);
      const url = decisionUrl(agent.walletId, txId, 'reject');
      expectValidation(await agent.user.api.post(url, { reason: 'r'.repeat(501) }), 'reason');
      expectValidation(await agent.user.api.post(url, { reason: 42 }), 'reason');
      expectValidation(await agent.user.api.post(url, { reason: null }), 'reason');
      expectValidation(await agent.user.api.post(url, { rejectionReason: 'x' }), 'rejectionReason');
      expectError(await agent.user.api.post(url, '"no"'), 400, 'VALIDATION_ERROR');
      await assertAgentStateUnchanged(h, state, 'a bad rejection');
    });

    test('unknown ids are a 404 NOT_FOUND', async () => {
      const agent = await agentWithKey(h);
      const other = await addAgentWallet(agent.user);
      const txId = await holdPayment(h, agent, '5');
      const state = await agentState(h);
      expectError(
        await agent.user.api.post(decisionUrl(agent.walletId, 'tx_nope', 'reject')),
        404,
        'NOT_FOUND',
      );
      expectError(await agent.user.api.post(decisionUrl('wal_nope', txId, 'reject')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.post(decisionUrl(other.id, txId, 'reject')), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, 'an unknown id');
    });

    test('a reason with a NUL character: a 400 naming reason or kept verbatim, never a 500', async () => {
      const agent = await agentWithKey(h);
      const txId = await holdPayment(h, agent, '10');
      const reply = await agent.user.api.post(decisionUrl(agent.walletId, txId, 'reject'), {
        reason: NUL_TEXT,
      });
      if (expectNulHandled(reply, 'reason')) assert.equal(reply.body.data.rejectionReason, NUL_TEXT);
      else assert.equal((await walletOf(agent.user, agent.walletId)).heldBalance, '10.000000');
    });
  });
}
