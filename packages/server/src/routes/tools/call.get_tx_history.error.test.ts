import { after, before, describe, test } from 'node:test';
import { agentWithKey, expectToolError, tool } from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/get_tx_history error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_history_error');
    });
    after(() => h.close());

    test('limit outside 1-100 or not a JSON integer is a 400 naming limit', async () => {
      const agent = await agentWithKey(h);
      // null is absent (contract section 4), not an error: call.get_tx_history.happy.test.ts.
      for (const limit of [0, 101, -1, 1.5, '5', true, [5]]) {
        const reply = await tool(h, agent.key, 'get_tx_history', { limit });
        expectValidation(reply, 'limit');
        expectToolError(reply, 'get_tx_history', 400, 'VALIDATION_ERROR');
      }
    });

    test('page below 1 or not a JSON integer is a 400 naming page', async () => {
      const agent = await agentWithKey(h);
      for (const page of [0, -1, 2.5, '1', false]) {
        expectValidation(await tool(h, agent.key, 'get_tx_history', { page }), 'page');
      }
    });

    test('an unknown status is a 400 naming status', async () => {
      const agent = await agentWithKey(h);
      for (const status of ['done', 'PENDING', '', 5, ['pending']]) {
        expectValidation(await tool(h, agent.key, 'get_tx_history', { status }), 'status');
      }
    });

    test('unknown params are a 400 naming them: no walletId, no type filter', async () => {
      const agent = await agentWithKey(h);
      for (const [field, value] of Object.entries({
        walletId: 'wal_x',
        type: 'payment',
        offset: 5,
        keyId: 'key_x',
      })) {
        expectValidation(await tool(h, agent.key, 'get_tx_history', { [field]: value }), field);
        expectValidation(
          await call(h.app, 'POST', '/mcp/v1/tools/get_tx_history', { [field]: value }, { token: agent.key }),
          field,
        );
      }
    });
  });
}
