import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  EXTERNAL,
  expectToolError,
  TOOL_NAMES,
  tool,
  toolUrl,
} from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/:name error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_call_error');
    });
    after(() => h.close());

    test('an unknown tool is a 404 UNKNOWN_TOOL and does nothing', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const name of [
        'transfer',
        'Check_Balance',
        'CHECK_BALANCE',
        'send-payment',
        'check_balance_',
        'x',
        'approve',
      ]) {
        const reply = await tool(h, agent.key, name, { toAddress: EXTERNAL, amount: '1' });
        expectToolError(reply, null, 404, 'UNKNOWN_TOOL');
        assert.equal(reply.body.tool, undefined, 'an unknown tool is not named as a tool');
      }
      await assertAgentStateUnchanged(h, state, 'an unknown tool');
    });

    test('a tool name of any length that is no tool is a 404 UNKNOWN_TOOL (not a 400)', async () => {
      const agent = await agentWithKey(h);
      const reply = await tool(h, agent.key, 'x'.repeat(65));
      expectToolError(reply, null, 404, 'UNKNOWN_TOOL');
    });

    test('a body that is not a JSON object is a 400, for every tool', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const name of TOOL_NAMES) {
        for (const body of ['[]', '"params"', '42', 'true', '[{"toAddress":"x"}]']) {
          expectToolError(
            await call(h.app, 'POST', toolUrl(name), body, { token: agent.key }),
            name,
            400,
            'VALIDATION_ERROR',
          );
        }
        expectToolError(
          await call(h.app, 'POST', toolUrl(name), '{"params":', { token: agent.key }),
          name,
          400,
          'VALIDATION_ERROR',
        );
      }
      await assertAgentStateUnchanged(h, state, 'a non-object body');
    });

    test('params that are not an object are a 400 naming params', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const name of TOOL_NAMES) {
        for (const params of [null, [], 'x', 5, [{ toAddress: EXTERNAL, amount: '1' }]]) {
          const reply = await call(h.app, 'POST', toolUrl(name), { params }, { token: agent.key });
          expectToolError(reply, name, 400, 'VALIDATION_ERROR');
          expectValidation(reply, 'params');
        }
      }
      await assertAgentStateUnchanged(h, state, 'bad params');
    });

    test('fields beside params are a 400 naming them', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const payment = { toAddress: EXTERNAL, amount: '1' };
      for (const [name, params] of [
        ['check_balance', {}],
        ['get_tx_history', {}],
        ['send_payment', payment],
        ['request_approval', payment],
      ] as const) {
        for (const [field, value] of Object.entries({ extra: 1, walletId: 'wal_x', idempotencyKey: 'k' })) {
          const reply = await call(
            h.app,
            'POST',
            toolUrl(name),
            { params, [field]: value },
            { token: agent.key },
          );
          expectToolError(reply, name, 400, 'VALIDATION_ERROR');
          expectValidation(reply, field);
        }
      }
      await assertAgentStateUnchanged(h, state, 'fields beside params');
    });

    test('check_balance takes no params: any param is a 400 naming it', async () => {
      const agent = await agentWithKey(h);
      for (const [field, value] of Object.entries({
        walletId: 'wal_x',
        address: EXTERNAL,
        currency: 'USDC',
      })) {
        expectValidation(await tool(h, agent.key, 'check_balance', { [field]: value }), field);
        expectValidation(
          await call(h.app, 'POST', toolUrl('check_balance'), { [field]: value }, { token: agent.key }),
          field,
        );
      }
    });

    test('a body that is not JSON is a 400', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const reply = await call(h.app, 'POST', toolUrl('send_payment'), `toAddress=${EXTERNAL}&amount=1`, {
        token: agent.key,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectToolError(reply, 'send_payment', 400, 'VALIDATION_ERROR');
      const big = await call(
        h.app,
        'POST',
        toolUrl('send_payment'),
        { toAddress: EXTERNAL, amount: '1', memo: 'm'.repeat(70_000) },
        {
          token: agent.key,
        },
      );
      expectToolError(big, 'send_payment', 413, 'PAYLOAD_TOO_LARGE');
      await assertAgentStateUnchanged(h, state, 'a non-JSON body');
    });
  });
}
