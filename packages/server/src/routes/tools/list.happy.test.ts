import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, TOOL_NAMES } from '../../../test/support/agent.ts';
import { assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

const SCOPES: Record<string, string> = {
  check_balance: 'read',
  get_tx_history: 'read',
  send_payment: 'write',
  request_approval: 'write',
  check_payment: 'read',
};

for (const target of await storeTargets()) {
  describe(`GET /mcp/v1/tools happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tools_list_happy');
    });
    after(() => h.close());

    test('{tools: [{name, description, scope, inputSchema}]}: every tool', async () => {
      const agent = await agentWithKey(h);
      const reply = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: agent.key });
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body, ['success', 'data']);
      assert.equal(reply.body.success, true);
      assertKeys(reply.body.data, ['tools']);
      const tools = reply.body.data.tools;
      assert.deepEqual(
        tools.map((t: { name: string }) => t.name),
        [...TOOL_NAMES],
      );
      for (const t of tools) {
        assertKeys(t, ['name', 'description', 'scope', 'inputSchema']);
        assert.equal(t.scope, SCOPES[t.name], t.name);
        assert.equal(typeof t.description, 'string');
        assert.ok(t.description.length > 20, `${t.name} has no real description`);
        assert.equal(t.inputSchema.type, 'object', t.name);
        assert.equal(t.inputSchema.additionalProperties, false, `${t.name} accepts unknown params`);
      }
    });

    test('the input schemas name each tool’s params and the required ones', async () => {
      const agent = await agentWithKey(h);
      const reply = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: agent.key });
      const byName = Object.fromEntries(
        reply.body.data.tools.map((t: { name: string; inputSchema: unknown }) => [t.name, t.inputSchema]),
      );
      const props = (name: string) => Object.keys(byName[name].properties ?? {}).sort();
      assert.deepEqual(props('check_balance'), []);
      assert.deepEqual(props('get_tx_history'), ['limit', 'page', 'status']);
      assert.deepEqual(props('send_payment'), ['amount', 'idempotencyKey', 'memo', 'toAddress']);
      assert.deepEqual(props('request_approval'), [
        'amount',
        'idempotencyKey',
        'memo',
        'reason',
        'toAddress',
      ]);
      // Only toAddress and amount on this (sandbox) rail: paymentRequirements is offered on the evm rail alone.
      assert.deepEqual(props('check_payment'), ['amount', 'toAddress']);
      // Every param is listed as required (OpenAI's strict mode); an optional one admits null, meaning absent.
      for (const name of Object.keys(byName))
        assert.deepEqual([...(byName[name].required ?? [])].sort(), props(name), `${name}: required`);
      const admitsNull = (name: string, param: string) => {
        const type = byName[name].properties[param].type;
        return Array.isArray(type) && type.includes('null');
      };
      assert.ok(!admitsNull('send_payment', 'amount') && !admitsNull('send_payment', 'toAddress'));
      assert.ok(admitsNull('send_payment', 'memo') && admitsNull('send_payment', 'idempotencyKey'));
      assert.ok(!admitsNull('check_payment', 'amount') && !admitsNull('check_payment', 'toAddress'));
      assert.equal(byName.send_payment.properties.amount.type, 'string');
      // Optional params also take null, which means absent (contract section 4): type [the param's type, null]; a
      // nullable enum says its values in its description.
      const status = byName.get_tx_history.properties.status;
      assert.deepEqual(status.type, ['string', 'null']);
      for (const value of ['completed', 'expired', 'failed', 'pending', 'processing', 'rejected'])
        assert.ok(status.description.includes(`"${value}"`), status.description);
    });

    test('a read-only and a write-only key see the same four tools', async () => {
      const full = await agentWithKey(h);
      const reference = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: full.key });
      for (const scopes of [['read'], ['write']]) {
        const agent = await agentWithKey(h, { scopes });
        const reply = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: agent.key });
        assert.equal(reply.status, 200, reply.raw);
        assert.deepEqual(reply.body, reference.body);
      }
    });
  });
}
