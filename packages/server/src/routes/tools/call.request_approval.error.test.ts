import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  breakChecksum,
  EXTERNAL,
  expectNulHandled,
  expectToolError,
  holdPayment,
  NUL_TEXT,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { eip55, expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

const BAD_AMOUNTS: unknown[] = [
  10,
  '-1',
  '0',
  '1.0000001',
  '1e3',
  '.5',
  '1.',
  '007',
  '1000000000.000001',
  '',
  null,
];

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/request_approval error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_approval_error');
    });
    after(() => h.close());

    test('missing or bad toAddress/amount is a 400 naming the field; nothing is held', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      expectValidation(await tool(h, agent.key, 'request_approval', { amount: '1' }), 'toAddress');
      expectValidation(await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL }), 'amount');
      for (const amount of BAD_AMOUNTS) {
        const reply = await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount });
        expectToolError(reply, 'request_approval', 400, 'VALIDATION_ERROR');
        expectValidation(reply, 'amount');
      }
      for (const toAddress of ['0x1234', breakChecksum(eip55(EXTERNAL)), 42, '']) {
        expectValidation(
          await tool(h, agent.key, 'request_approval', { toAddress, amount: '1' }),
          'toAddress',
        );
      }
      await assertAgentStateUnchanged(h, state, 'a bad request');
    });

    test('reason or memo over 500 characters, and unknown params, are a 400 naming them', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const base = { toAddress: EXTERNAL, amount: '1' };
      expectValidation(
        await tool(h, agent.key, 'request_approval', { ...base, reason: 'r'.repeat(501) }),
        'reason',
      );
      expectValidation(
        await tool(h, agent.key, 'request_approval', { ...base, memo: 'm'.repeat(501) }),
        'memo',
      );
      expectValidation(await tool(h, agent.key, 'request_approval', { ...base, reason: ['x'] }), 'reason');
      for (const [field, value] of Object.entries({
        walletId: 'wal_x',
        expiresAt: '2030-01-01T00:00:00Z',
        approve: true,
      })) {
        expectValidation(await tool(h, agent.key, 'request_approval', { ...base, [field]: value }), field);
      }
      await assertAgentStateUnchanged(h, state, 'a bad param');
    });

    test("the wallet's own address is a 400", async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const reply = await tool(h, agent.key, 'request_approval', {
        toAddress: agent.address.toLowerCase(),
        amount: '1',
      });
      expectToolError(reply, 'request_approval', 400, 'VALIDATION_ERROR');
      await assertAgentStateUnchanged(h, state, 'requesting to pay itself');
    });

    test('an amount the available balance cannot hold is a 422 INSUFFICIENT_BALANCE', async () => {
      const agent = await agentWithKey(h);
      let state = await agentState(h);
      expectToolError(
        await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount: '100.000001' }),
        'request_approval',
        422,
        'INSUFFICIENT_BALANCE',
      );
      await assertAgentStateUnchanged(h, state, 'an overdraft request');
      await holdPayment(h, agent, '70');
      state = await agentState(h);
      expectToolError(
        await tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount: '30.000001' }),
        'request_approval',
        422,
        'INSUFFICIENT_BALANCE',
      );
      await assertAgentStateUnchanged(h, state, 'holding held money twice');
    });

    test('a frozen wallet is a 403 WALLET_FROZEN, nothing is held; reads still work', async () => {
      const agent = await agentWithKey(h);
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/freeze`);
      const state = await agentState(h);
      const reply = await tool(h, agent.key, 'request_approval', {
        toAddress: EXTERNAL,
        amount: '1',
        reason: 'please',
      });
      expectToolError(reply, 'request_approval', 403, 'WALLET_FROZEN');
      await assertAgentStateUnchanged(h, state, 'a request from a frozen wallet');
      assert.equal(toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').frozen, true);
      toolOk(await tool(h, agent.key, 'get_tx_history'), 'get_tx_history');
    });

    test('the same idempotency key with another reason is a 409 IDEMPOTENCY_CONFLICT', async () => {
      const agent = await agentWithKey(h);
      const params = { toAddress: EXTERNAL, amount: '1', reason: 'first', idempotencyKey: 'k1' };
      toolOk(await tool(h, agent.key, 'request_approval', params), 'request_approval');
      const state = await agentState(h);
      expectToolError(
        await tool(h, agent.key, 'request_approval', { ...params, reason: 'second' }),
        'request_approval',
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      // The same key on the other write tool is other params too.
      expectToolError(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1', idempotencyKey: 'k1' }),
        'send_payment',
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      await assertAgentStateUnchanged(h, state, 'an idempotency conflict');
    });

    test('a reason with a NUL character: a 400 naming reason or kept verbatim, never a 500', async () => {
      const agent = await agentWithKey(h);
      const reply = await tool(h, agent.key, 'request_approval', {
        toAddress: EXTERNAL,
        amount: '1',
        reason: NUL_TEXT,
      });
      if (expectNulHandled(reply, 'reason')) {
        const pending = await agent.user.api.get(
          `/api/v1/agent-wallets/${agent.walletId}/transactions/pending`,
        );
        assert.equal(pending.body.data.transactions[0].reason, NUL_TEXT);
      }
    });
  });
}
