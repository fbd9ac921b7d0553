import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  EXTERNAL,
  keyInList,
  TOOL_NAMES,
  type ToolName,
  tool,
  toolOk,
  toolUrl,
} from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

const PARAMS: Record<ToolName, Record<string, unknown>> = {
  check_balance: {},
  get_tx_history: { limit: 5 },
  send_payment: { toAddress: EXTERNAL, amount: '1' },
  request_approval: { toAddress: EXTERNAL, amount: '1', reason: 'why not' },
  check_payment: { toAddress: EXTERNAL, amount: '1' },
};

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/:name happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_call_happy');
    });
    after(() => h.close());

    test('every tool answers 200 {success: true, tool: <name>, data}', async () => {
      const agent = await agentWithKey(h);
      for (const name of TOOL_NAMES) {
        const reply = await tool(h, agent.key, name, PARAMS[name]);
        const data = toolOk(reply, name);
        assert.equal(typeof data, 'object');
        assert.equal(reply.headers['content-type']?.toString().startsWith('application/json'), true);
      }
    });

    test('{params: {...}} and the bare params are the same call, for every tool', async () => {
      const agent = await agentWithKey(h);
      for (const name of TOOL_NAMES) {
        const wrapped = await call(
          h.app,
          'POST',
          toolUrl(name),
          { params: PARAMS[name] },
          { token: agent.key },
        );
        const bare = await call(h.app, 'POST', toolUrl(name), PARAMS[name], { token: agent.key });
        const a = toolOk(wrapped, name);
        const b = toolOk(bare, name);
        if (name === 'send_payment' || name === 'request_approval') {
          assert.equal(b.status, a.status);
          assert.notEqual(b.txId, a.txId, 'without an idempotency key these are two payments');
        } else if (name === 'check_balance' || name === 'check_payment') {
          assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
        } else {
          assert.equal(b.limit, a.limit);
        }
      }
      const balance = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.equal(balance.balance, '96.000000');
    });

    test('check_balance takes {}, {params: {}} or no body at all', async () => {
      const agent = await agentWithKey(h);
      const replies = [
        await call(h.app, 'POST', toolUrl('check_balance'), {}, { token: agent.key }),
        await call(h.app, 'POST', toolUrl('check_balance'), { params: {} }, { token: agent.key }),
        await call(h.app, 'POST', toolUrl('check_balance'), undefined, { token: agent.key }),
      ];
      const first = toolOk(replies[0]!, 'check_balance');
      for (const reply of replies) assert.deepEqual(toolOk(reply, 'check_balance'), first);
    });

    test('a bearer scheme in any letter case is accepted', async () => {
      const agent = await agentWithKey(h);
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const reply = await call(
          h.app,
          'POST',
          toolUrl('check_balance'),
          {},
          {
            headers: { authorization: `${scheme} ${agent.key}` },
          },
        );
        toolOk(reply, 'check_balance');
      }
    });

    test("a tool call records the key's lastUsedAt", async () => {
      const agent = await agentWithKey(h);
      h.clock.advanceSeconds(42);
      toolOk(await tool(h, agent.key, 'send_payment', PARAMS.send_payment), 'send_payment');
      await h.services.keys.flushLastUsed();
      const item = await keyInList(agent.user, agent.walletId, agent.keyId);
      assert.equal(item.lastUsedAt, new Date(h.clock.nowMs()).toISOString());
    });
  });
}
