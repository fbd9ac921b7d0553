// Issue 10, defects 8 and 9: POST /mcp accepted any Origin and Host (the MCP conformance scenario
// dns-rebinding-protection failed), and a tools/call that failed unexpectedly handed the driver's text to the
// agent and logged nothing. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type Agent, agentWithKey } from '../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../test/support/harness.ts';
import { call, expectError } from '../../test/support/http.ts';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

function rpc(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id: 1, method, params };
}

const initialize = rpc('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'security-test', version: '1' },
});

for (const target of await storeTargets()) {
  describe(`POST /mcp security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let agent: Agent;
    before(async () => {
      h = await startHarness(target.name, 'mcp_security', {
        env: { ALLOWED_ORIGINS: 'https://app.example.com' },
      });
      agent = await agentWithKey(h);
    });
    after(() => h.close());

    const mcp = (body: unknown, headers: Record<string, string>) =>
      call(h.app, 'POST', '/mcp', body, { token: agent.key, headers: { ...MCP_HEADERS, ...headers } });

    test('a rebound name (Host and Origin evil.example.com) is a 403 and runs nothing', async () => {
      const reply = await mcp(initialize, { host: 'evil.example.com', origin: 'http://evil.example.com' });
      expectError(reply, 403, 'ORIGIN_NOT_ALLOWED');
      const noKey = await call(h.app, 'POST', '/mcp', initialize, {
        headers: { ...MCP_HEADERS, host: 'evil.example.com:8787' },
      });
      expectError(noKey, 403, 'ORIGIN_NOT_ALLOWED');
    });

    test('a foreign Origin is a 403 on /mcp and on the REST API; same origin and allowed ones pass', async () => {
      expectError(await mcp(initialize, { origin: 'https://evil.example.com' }), 403, 'ORIGIN_NOT_ALLOWED');
      expectError(await mcp(initialize, { origin: 'null' }), 403, 'ORIGIN_NOT_ALLOWED');
      const rest = await call(h.app, 'GET', '/api/v1/wallet', undefined, {
        token: agent.user.token,
        headers: { origin: 'https://evil.example.com' },
      });
      expectError(rest, 403, 'ORIGIN_NOT_ALLOWED');
      for (const origin of ['http://localhost:80', 'https://app.example.com']) {
        const ok = await mcp(initialize, { origin });
        assert.equal(ok.status, 200, `${origin}: ${ok.raw}`);
      }
      for (const host of ['localhost:8787', '127.0.0.1:8787', '[::1]:8787', 'app.example.com']) {
        assert.equal((await mcp(initialize, { host })).status, 200, host);
      }
    });

    test('an unexpected failure in a tool is INTERNAL_ERROR with the request id, never the driver text', async () => {
      // A real fault in the real database: the table a tool reads is gone for a moment.
      await sql`alter table accounts rename to accounts_gone`.execute(h.services.store.db);
      let reply: Awaited<ReturnType<typeof mcp>>;
      try {
        reply = await mcp(rpc('tools/call', { name: 'check_balance', arguments: {} }), {});
      } finally {
        await sql`alter table accounts_gone rename to accounts`.execute(h.services.store.db);
      }
      assert.equal(reply.status, 200, reply.raw);
      const result = reply.body.result;
      assert.equal(result.isError, true, reply.raw);
      const text: string = result.content[0].text;
      assert.match(text, /^INTERNAL_ERROR: an unexpected error occurred \(request id req_[0-9A-Za-z]+\)$/);
      assert.ok(!/accounts|relation|table|sqlite|postgres/i.test(text), text);
      assert.equal(reply.headers['x-request-id'], text.match(/req_[0-9A-Za-z]+/)?.[0]);
    });
  });
}
