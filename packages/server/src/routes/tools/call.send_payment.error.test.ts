import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  breakChecksum,
  createPolicy,
  EXTERNAL,
  EXTERNAL_2,
  expectNulHandled,
  expectToolError,
  holdPayment,
  NUL_TEXT,
  tool,
  toolOk,
  walletOf,
} from '../../../test/support/agent.ts';
import { BAD_AMOUNTS, eip55, expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

const BAD_ADDRESSES: unknown[] = [
  '',
  '0x',
  'abc',
  EXTERNAL.slice(2),
  `${EXTERNAL}ab`,
  EXTERNAL.slice(0, 41),
  `0x${'g'.repeat(40)}`,
  ` ${EXTERNAL}`,
  `0X${EXTERNAL.slice(2)}`,
  breakChecksum(eip55(EXTERNAL)),
  123,
  null,
  [EXTERNAL],
  { address: EXTERNAL },
];

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/send_payment error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_send_error');
    });
    after(() => h.close());

    test('every malformed amount is a 400 naming amount and saying what is wrong; nothing moves', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const bad of BAD_AMOUNTS) {
        const params =
          bad.value === undefined ? { toAddress: EXTERNAL } : { toAddress: EXTERNAL, amount: bad.value };
        const reply = await tool(h, agent.key, 'send_payment', params);
        expectToolError(reply, 'send_payment', 400, 'VALIDATION_ERROR');
        expectValidation(reply, 'amount', bad.reason);
      }
      await assertAgentStateUnchanged(h, state, 'a bad amount');
    });

    test('a missing or malformed toAddress is a 400 naming toAddress', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      expectValidation(await tool(h, agent.key, 'send_payment', { amount: '1' }), 'toAddress', /required/);
      for (const toAddress of BAD_ADDRESSES) {
        expectValidation(await tool(h, agent.key, 'send_payment', { toAddress, amount: '1' }), 'toAddress');
      }
      expectValidation(
        await tool(h, agent.key, 'send_payment', { toAddress: breakChecksum(eip55(EXTERNAL)), amount: '1' }),
        'toAddress',
        /checksum/,
      );
      await assertAgentStateUnchanged(h, state, 'a bad address');
    });

    test('a memo over 500 characters or not a string, and unknown params, are a 400 naming them', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const base = { toAddress: EXTERNAL, amount: '1' };
      expectValidation(await tool(h, agent.key, 'send_payment', { ...base, memo: 'm'.repeat(501) }), 'memo');
      expectValidation(await tool(h, agent.key, 'send_payment', { ...base, memo: 5 }), 'memo');
      for (const [field, value] of Object.entries({
        walletId: 'wal_x',
        fromWalletId: 'wal_x',
        from: EXTERNAL_2,
        reason: 'please',
        currency: 'USDC',
        status: 'completed',
      })) {
        expectValidation(await tool(h, agent.key, 'send_payment', { ...base, [field]: value }), field);
      }
      expectValidation(
        await tool(h, agent.key, 'send_payment', { ...base, idempotencyKey: '' }),
        'idempotencyKey',
      );
      expectValidation(
        await tool(h, agent.key, 'send_payment', { ...base, idempotencyKey: 'k'.repeat(256) }),
        'idempotencyKey',
      );
      expectToolError(
        await tool(h, agent.key, 'send_payment', base, { headers: { 'idempotency-key': 'k'.repeat(256) } }),
        'send_payment',
        400,
        'VALIDATION_ERROR',
      );
      await assertAgentStateUnchanged(h, state, 'a bad param');
    });

    test("paying the wallet's own address is a 400, in any letter case", async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const toAddress of [
        agent.address,
        agent.address.toLowerCase(),
        `0x${agent.address.slice(2).toUpperCase()}`,
      ]) {
        const reply = await tool(h, agent.key, 'send_payment', { toAddress, amount: '1' });
        expectToolError(reply, 'send_payment', 400, 'VALIDATION_ERROR');
        assert.match(reply.body.error.message, /toAddress/);
      }
      await assertAgentStateUnchanged(h, state, 'paying itself');
    });

    test('more than the available balance is a 422 INSUFFICIENT_BALANCE; held money is not available', async () => {
      const agent = await agentWithKey(h);
      let state = await agentState(h);
      for (const amount of ['100.000001', '1000000000']) {
        expectToolError(
          await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount }),
          'send_payment',
          422,
          'INSUFFICIENT_BALANCE',
        );
      }
      await assertAgentStateUnchanged(h, state, 'an overdraft');
      await holdPayment(h, agent, '90');
      state = await agentState(h);
      expectToolError(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '10.000001' }),
        'send_payment',
        422,
        'INSUFFICIENT_BALANCE',
      );
      await assertAgentStateUnchanged(h, state, 'spending held money');
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '10' }), 'send_payment');
    });

    test('a frozen wallet is a 403 WALLET_FROZEN and nothing is recorded; reads still work', async () => {
      const agent = await agentWithKey(h);
      assert.equal((await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/freeze`)).status, 200);
      const state = await agentState(h);
      const reply = await tool(h, agent.key, 'send_payment', {
        toAddress: EXTERNAL,
        amount: '1',
        idempotencyKey: 'f1',
      });
      expectToolError(reply, 'send_payment', 403, 'WALLET_FROZEN');
      await assertAgentStateUnchanged(h, state, 'a payment from a frozen wallet');
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      toolOk(await tool(h, agent.key, 'get_tx_history'), 'get_tx_history');
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/unfreeze`);
      const after = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1', idempotencyKey: 'f1' }),
        'send_payment',
      );
      assert.equal(after.status, 'completed');
    });

    test('a policy denial is a 422 POLICY_DENIED listing every violated policy, with the rejected record', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '5' });
      const daily = await createPolicy(agent.user, agent.walletId, 'spend_cap_daily', { limit: '6' });
      const allow = await createPolicy(agent.user, agent.walletId, 'address_allowlist', {
        addresses: [EXTERNAL],
      });
      const reply = await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL_2, amount: '7' });
      expectToolError(reply, 'send_payment', 422, 'POLICY_DENIED');
      assert.deepEqual(
        reply.body.error.violations.map((v: { policyId: string; policyType: string }) => [
          v.policyId,
          v.policyType,
        ]),
        [
          [cap.id, 'spend_cap_per_tx'],
          [daily.id, 'spend_cap_daily'],
          [allow.id, 'address_allowlist'],
        ],
      );
      assert.match(reply.body.data.txId, /^tx_/);
      assert.equal(reply.body.data.status, 'rejected');
      const wallet = await walletOf(agent.user, agent.walletId);
      assert.deepEqual([wallet.balance, wallet.heldBalance], ['100.000000', '0.000000']);
      const tx = await agent.user.api.get(
        `/api/v1/agent-wallets/${agent.walletId}/transactions/${reply.body.data.txId}`,
      );
      assert.equal(tx.body.data.status, 'rejected');
      assert.equal(tx.body.data.violations.length, 3);
    });

    test('the same idempotency key with other params is a 409 IDEMPOTENCY_CONFLICT', async () => {
      const agent = await agentWithKey(h);
      toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1', idempotencyKey: 'dup' }),
        'send_payment',
      );
      const state = await agentState(h);
      for (const params of [
        { toAddress: EXTERNAL, amount: '2', idempotencyKey: 'dup' },
        { toAddress: EXTERNAL_2, amount: '1', idempotencyKey: 'dup' },
        { toAddress: EXTERNAL, amount: '1', memo: 'x', idempotencyKey: 'dup' },
      ]) {
        expectToolError(
          await tool(h, agent.key, 'send_payment', params),
          'send_payment',
          409,
          'IDEMPOTENCY_CONFLICT',
        );
      }
      expectToolError(
        await tool(
          h,
          agent.key,
          'send_payment',
          { toAddress: EXTERNAL, amount: '1', idempotencyKey: 'a' },
          {
            headers: { 'idempotency-key': 'b' },
          },
        ),
        'send_payment',
        400,
        'VALIDATION_ERROR',
      );
      await assertAgentStateUnchanged(h, state, 'an idempotency conflict');
    });

    test('memo, idempotencyKey or a param name holding an unpaired surrogate is a 400 naming it; nothing moves', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const payment = { toAddress: EXTERNAL, amount: '1' };
      for (const [params, field] of [
        [{ ...payment, memo: 'bad\ud800' }, 'memo'],
        [{ ...payment, idempotencyKey: '\udc00' }, 'idempotencyKey'],
        [{ ...payment, 'x\ud800': 1 }, 'params has a field name'],
      ] as const) {
        expectValidation(await tool(h, agent.key, 'send_payment', params), field, /unpaired surrogate/);
      }
      await assertAgentStateUnchanged(h, state, 'a payment whose text is not Unicode');
    });

    test('memo or idempotencyKey with a NUL character: a 400 naming it or kept verbatim, never a 500', async () => {
      const agent = await agentWithKey(h);
      const memo = await tool(h, agent.key, 'send_payment', {
        toAddress: EXTERNAL,
        amount: '1',
        memo: NUL_TEXT,
      });
      if (expectNulHandled(memo, 'memo')) {
        const history = toolOk(await tool(h, agent.key, 'get_tx_history', { limit: 1 }), 'get_tx_history');
        assert.equal(history.transactions[0].memo, NUL_TEXT);
      }
      const key = await tool(h, agent.key, 'send_payment', {
        toAddress: EXTERNAL,
        amount: '1',
        idempotencyKey: NUL_TEXT,
      });
      expectNulHandled(key, 'idempotencyKey');
    });
  });
}
