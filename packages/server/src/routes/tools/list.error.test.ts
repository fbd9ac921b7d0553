import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, unknownKey } from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /mcp/v1/tools error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tools_list_error');
    });
    after(() => h.close());

    test('a missing or non-bearer Authorization is a 401 MCP_AUTH_MISSING', async () => {
      const agent = await agentWithKey(h);
      for (const authorization of [
        undefined,
        '',
        'Bearer',
        'Bearer    ',
        agent.key,
        `Basic ${Buffer.from(`${agent.key}:`).toString('base64')}`,
        `Token ${agent.key}`,
        `Bearer ${'x'.repeat(3000)}`,
      ]) {
        const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
        const reply = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { headers });
        expectError(reply, 401, 'MCP_AUTH_MISSING');
        assert.ok(!reply.raw.includes(agent.key));
      }
      expectError(await call(h.app, 'GET', `/mcp/v1/tools?key=${agent.key}`), 401, 'MCP_AUTH_MISSING');
    });

    test('an unknown or malformed svc_live_ key is a 401 MCP_AUTH_INVALID', async () => {
      for (const key of [
        unknownKey(),
        'svc_live_',
        'svc_live_short',
        `svc_live_${'a'.repeat(42)}!`,
        `svc_live_${'é'.repeat(40)}`,
      ]) {
        expectError(
          await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: key }),
          401,
          'MCP_AUTH_INVALID',
        );
      }
    });

    test('other methods on the listing are a 405 with Allow', async () => {
      const agent = await agentWithKey(h);
      for (const method of ['POST', 'DELETE'] as const) {
        const reply = await call(h.app, method, '/mcp/v1/tools', method === 'POST' ? {} : undefined, {
          token: agent.key,
        });
        assert.equal(reply.status, 405, reply.raw);
        assert.equal(reply.headers.allow, 'GET, HEAD');
        assert.equal(reply.body.error.code, 'METHOD_NOT_ALLOWED');
      }
    });
  });
}
