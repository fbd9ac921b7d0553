// Issue 30 (agent hosts and frameworks over MCP), on both stores, against the real service:
//  - a framework's retry paid twice: over POST /mcp the Idempotency-Key header was ignored, and a retried denial
//    wrote a rejected record per attempt. Now a write tool's key comes from its params, `_meta.idempotencyKey` or the
//    header, is required over MCP, and a retry is a replay: the store holds exactly one transaction per key;
//  - a null for an optional param (strict mode) was a 400; now it is absent, over MCP and the REST tool route;
//  - protocol overhead counted against POST /mcp's 60 a minute and cut a check_balance loop short with an HTTP 429;
//    now only tools/call counts in the tool's bucket, its refusal is a tool result (RATE_LIMITED, retryAfter), and
//    the transport keeps a generous flood guard of its own (mcp_transport);
//  - a 401 without WWW-Authenticate, and /.well-known/* answered with the dashboard's page.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type Agent,
  agentWithKey,
  createPolicy,
  EXTERNAL,
  EXTERNAL_2,
  tool,
  toolOk,
} from './support/agent.ts';
import { GENEROUS_RATE_LIMITS, type Harness, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError, type Reply } from './support/http.ts';

const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const WRITE_TOOLS = ['send_payment', 'request_approval'];

let nextId = 1;
function rpc(method: string, params?: Record<string, unknown>) {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) };
}

const initialize = () =>
  rpc('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'hosts-test', version: '1' },
  });

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON-RPC results
type Result = any;

const targets = await storeTargets();

for (const target of targets) {
  describe(`MCP for agent hosts: retries, nulls, limits (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'mcp_hosts', {
        env: {
          RATE_LIMITS: JSON.stringify({
            ...JSON.parse(GENEROUS_RATE_LIMITS),
            check_balance: 5,
            default: 60,
            mcp_transport: 100,
          }),
        },
      });
    });
    after(() => h.close());

    const mcp = (agent: Agent, body: unknown, headers: Record<string, string> = {}) =>
      call(h.app, 'POST', '/mcp', body, { token: agent.key, headers: { ...MCP_HEADERS, ...headers } });

    async function callTool(
      agent: Agent,
      name: string,
      args: Record<string, unknown>,
      options: { headers?: Record<string, string>; meta?: Record<string, unknown> } = {},
    ): Promise<Result> {
      const params = {
        name,
        arguments: args,
        ...(options.meta === undefined ? {} : { _meta: options.meta }),
      };
      const reply = await mcp(agent, rpc('tools/call', params), options.headers);
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.error, undefined, reply.raw);
      return reply.body.result;
    }

    async function transactionsOf(walletId: string) {
      return h.services.store.db
        .selectFrom('transactions')
        .select(['id', 'status', 'memo'])
        .where('wallet_id', '=', walletId)
        .where('type', '=', 'payment')
        .execute();
    }

    test('tools/list: every write tool requires idempotencyKey over MCP; the REST listing keeps it optional', async () => {
      const agent = await agentWithKey(h);
      const listed = await mcp(agent, rpc('tools/list'));
      assert.equal(listed.status, 200, listed.raw);
      for (const name of WRITE_TOOLS) {
        const t = listed.body.result.tools.find((x: Result) => x.name === name);
        assert.ok(
          t.inputSchema.required.includes('idempotencyKey'),
          `${name}: ${JSON.stringify(t.inputSchema)}`,
        );
        assert.equal(
          t.inputSchema.properties.idempotencyKey.type,
          'string',
          `${name}: not nullable over MCP`,
        );
        assert.match(t.inputSchema.properties.idempotencyKey.description, /reuse it when retrying/);
        assert.match(t.description, /_meta\.idempotencyKey/);
      }
      const rest = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: agent.key });
      for (const name of WRITE_TOOLS) {
        const t = rest.body.data.tools.find((x: Result) => x.name === name);
        // Listed as required like every param (OpenAI's strict mode), but optional: it admits null, meaning absent.
        const key = t.inputSchema.properties.idempotencyKey;
        assert.deepEqual(key.type, ['string', 'null'], `${name}: ${JSON.stringify(key)}`);
      }
    });

    test('a retry with the same key pays once, whether the key is a param, _meta or the Idempotency-Key header', async () => {
      const agent = await agentWithKey(h);
      const payment = { toAddress: EXTERNAL, amount: '1.25', memo: 'retried' };
      const ways: Array<[string, Parameters<typeof callTool>[3], Record<string, unknown>]> = [
        ['param', {}, { idempotencyKey: 'by-param' }],
        ['_meta', { meta: { idempotencyKey: 'by-meta' } }, {}],
        ['header', { headers: { 'idempotency-key': 'by-header' } }, {}],
      ];
      for (const [way, options, extra] of ways) {
        const first = await callTool(agent, 'send_payment', { ...payment, ...extra }, options);
        assert.equal(first.isError, undefined, `${way}: ${JSON.stringify(first)}`);
        assert.equal(first.structuredContent.status, 'completed');
        const again = await callTool(agent, 'send_payment', { ...payment, ...extra }, options);
        assert.equal(again.structuredContent.txId, first.structuredContent.txId, `${way}: a replay`);
      }
      assert.equal((await transactionsOf(agent.walletId)).length, 3, 'exactly one payment per key');
      // The param wins over _meta and the header: this is the first payment again, not a new one.
      const param = await callTool(
        agent,
        'send_payment',
        { ...payment, idempotencyKey: 'by-param' },
        { meta: { idempotencyKey: 'other' }, headers: { 'idempotency-key': 'another' } },
      );
      assert.equal(param.isError, undefined, JSON.stringify(param));
      // The same key with other params is a conflict, as a tool error.
      const conflict = await callTool(
        agent,
        'send_payment',
        { ...payment, amount: '2' },
        {
          headers: { 'idempotency-key': 'by-header' },
        },
      );
      assert.equal(conflict.isError, true);
      assert.equal(conflict.structuredContent.code, 'IDEMPOTENCY_CONFLICT');
      assert.equal((await transactionsOf(agent.walletId)).length, 3);
    });

    test('the stdio bridge’s and any other client’s write call without a key is refused, nothing stored', async () => {
      const agent = await agentWithKey(h);
      for (const name of WRITE_TOOLS) {
        const args = {
          toAddress: EXTERNAL,
          amount: '1',
          ...(name === 'request_approval' ? { reason: 'x' } : {}),
        };
        const refused = await callTool(agent, name, args);
        assert.equal(refused.isError, true);
        assert.equal(refused.structuredContent.code, 'VALIDATION_ERROR');
        assert.match(
          refused.content[0].text,
          /^VALIDATION_ERROR: params: idempotencyKey is required over MCP/,
        );
      }
      const badMeta = await callTool(
        agent,
        'send_payment',
        { toAddress: EXTERNAL, amount: '1' },
        {
          meta: { idempotencyKey: 'x'.repeat(256) },
        },
      );
      assert.equal(badMeta.structuredContent.code, 'VALIDATION_ERROR');
      assert.equal((await transactionsOf(agent.walletId)).length, 0);
      // The REST tool route keeps the original SDK's contract: no key, a payment.
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' }), 'send_payment');
    });

    test('a denial is a tool error with the violations; its retry replays it: one rejected record', async () => {
      const agent = await agentWithKey(h);
      const policy = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '5' });
      const args = { toAddress: EXTERNAL, amount: '9', idempotencyKey: 'denied-once' };
      const results = [];
      for (let i = 0; i < 3; i += 1) results.push(await callTool(agent, 'send_payment', args));
      for (const denied of results) {
        assert.equal(denied.isError, true);
        assert.match(denied.content[0].text, /^POLICY_DENIED: /);
        const structured = denied.structuredContent;
        assert.equal(structured.code, 'POLICY_DENIED');
        assert.equal(structured.violations[0].policyId, policy.id);
        assert.equal(structured.violations[0].policyType, 'spend_cap_per_tx');
        assert.equal(structured.data.status, 'rejected');
        assert.equal(structured.data.txId, results[0].structuredContent.data.txId);
      }
      const stored = await transactionsOf(agent.walletId);
      assert.deepEqual(
        stored.map((t) => t.status),
        ['rejected'],
      );
    });

    test('null means absent for optional params, over MCP and the REST tool route; a required null is a 400', async () => {
      const agent = await agentWithKey(h);
      const viaMcp = await callTool(agent, 'send_payment', {
        toAddress: EXTERNAL,
        amount: '1',
        memo: null,
        idempotencyKey: 'null-memo',
      });
      assert.equal(viaMcp.isError, undefined, JSON.stringify(viaMcp));
      const history = await callTool(agent, 'get_tx_history', { page: null, limit: null, status: null });
      assert.equal(history.structuredContent.limit, 20, JSON.stringify(history));
      const rest = await tool(h, agent.key, 'request_approval', {
        toAddress: EXTERNAL_2,
        amount: '1',
        memo: null,
        reason: null,
        idempotencyKey: null,
      });
      assert.equal(toolOk(rest, 'request_approval').status, 'pending');
      const check = await tool(h, agent.key, 'check_payment', {
        toAddress: EXTERNAL,
        amount: '1',
        paymentRequirements: null,
      });
      assert.equal(toolOk(check, 'check_payment').allowed, true);
      const memos = (await transactionsOf(agent.walletId)).map((t) => t.memo);
      assert.deepEqual(memos, [null, null], 'a null memo is no memo');
      expectError(
        await tool(h, agent.key, 'send_payment', { toAddress: null, amount: '1' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: null }),
        400,
        'VALIDATION_ERROR',
      );
      const requiredNull = await callTool(agent, 'send_payment', {
        toAddress: EXTERNAL,
        amount: null,
        idempotencyKey: 'required-null',
      });
      assert.equal(requiredNull.structuredContent.code, 'VALIDATION_ERROR');
    });

    test('protocol overhead costs no tool budget; the tool’s limit is a readable tool result, not an HTTP 429', async () => {
      const agent = await agentWithKey(h);
      // What a host does around its calls: initialize, the initialized notification, list calls, pings, the GET
      // and DELETE a stateless server answers 405 — many times over, far more than the tool's 5 a minute.
      // 12 rounds: 60 POSTs of overhead, the whole 60 a minute of the default bucket that once counted them.
      for (let i = 0; i < 12; i += 1) {
        assert.equal((await mcp(agent, initialize())).status, 200);
        assert.equal((await mcp(agent, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
        assert.equal((await mcp(agent, rpc('tools/list'))).status, 200);
        assert.equal((await mcp(agent, rpc('resources/list'))).status, 200);
        assert.equal((await mcp(agent, rpc('ping'))).status, 200);
        for (const method of ['GET', 'DELETE'] as const) {
          const wrong = await h.app.inject({
            method,
            url: '/mcp',
            headers: { ...MCP_HEADERS, authorization: `Bearer ${agent.key}` },
          });
          assert.equal(wrong.statusCode, 405);
        }
      }
      for (let i = 0; i < 5; i += 1) {
        const balance = await callTool(agent, 'check_balance', {});
        assert.equal(balance.isError, undefined, `call ${i + 1}: ${JSON.stringify(balance)}`);
      }
      const limited = await callTool(agent, 'check_balance', {});
      assert.equal(limited.isError, true);
      assert.match(
        limited.content[0].text,
        /^RATE_LIMITED: rate limit exceeded: 5 requests per minute for check_balance/,
      );
      assert.equal(limited.structuredContent.code, 'RATE_LIMITED');
      assert.ok(Number.isInteger(limited.structuredContent.retryAfter), JSON.stringify(limited));
      assert.ok(limited.structuredContent.retryAfter >= 1 && limited.structuredContent.retryAfter <= 60);
      // A write tool is not touched by check_balance's bucket.
      const paid = await callTool(agent, 'send_payment', {
        toAddress: EXTERNAL,
        amount: '1',
        idempotencyKey: 'k',
      });
      assert.equal(paid.isError, undefined, JSON.stringify(paid));
    });

    test('the transport keeps its own flood guard per key (mcp_transport), with Retry-After', async () => {
      const agent = await agentWithKey(h);
      const other = await agentWithKey(h);
      let last: Reply | undefined;
      for (let i = 0; i < 101; i += 1) {
        last = await mcp(agent, rpc('ping'));
        if (last.status !== 200) break;
      }
      assert.ok(last !== undefined);
      expectError(last, 429, 'RATE_LIMITED');
      assert.match(last.body.error.message, /for the MCP transport/);
      assert.ok(Number(last.headers['retry-after']) >= 1);
      assert.equal((await mcp(other, rpc('ping'))).status, 200, 'another key has its own guard');
    });
  });
}

describe('WWW-Authenticate on every 401, and /.well-known/* is a JSON 404', () => {
  let h: Harness;
  let dashboardDir: string;
  before(async () => {
    dashboardDir = mkdtempSync(join(tmpdir(), 'agent-wallet-dashboard-'));
    writeFileSync(join(dashboardDir, 'index.html'), '<!doctype html><title>dashboard</title>');
    h = await startHarness('sqlite', 'mcp_hosts_auth', { env: { DASHBOARD_DIR: dashboardDir } });
  });
  after(async () => {
    await h.close();
    rmSync(dashboardDir, { recursive: true, force: true });
  });

  const challenge = (reply: Reply) => String(reply.headers['www-authenticate'] ?? '');

  test('no credential: the bare Bearer challenge; a refused one: error="invalid_token"; /mcp names its metadata', async () => {
    const init = initialize();
    // On /mcp the challenge points OAuth-capable hosts at the protected resource metadata (contract section 12).
    const metadata = 'resource_metadata="http://localhost:80/.well-known/oauth-protected-resource/mcp"';
    const noKey = await call(h.app, 'POST', '/mcp', init, { headers: MCP_HEADERS });
    expectError(noKey, 401, 'MCP_AUTH_MISSING');
    assert.equal(challenge(noKey), `Bearer realm="agent-wallet", ${metadata}`);
    const badKey = await call(h.app, 'POST', '/mcp', init, {
      token: `svc_live_${'z'.repeat(43)}`,
      headers: MCP_HEADERS,
    });
    expectError(badKey, 401, 'MCP_AUTH_INVALID');
    assert.equal(challenge(badKey), `Bearer realm="agent-wallet", error="invalid_token", ${metadata}`);
    const restTool = await call(h.app, 'POST', '/mcp/v1/tools/check_balance', {}, { token: 'not-a-key' });
    assert.equal(restTool.status, 401);
    assert.equal(challenge(restTool), 'Bearer realm="agent-wallet", error="invalid_token"');
    const me = await call(h.app, 'GET', '/api/v1/auth/me');
    expectError(me, 401, 'UNAUTHORIZED');
    assert.equal(challenge(me), 'Bearer realm="agent-wallet"');
    const badJwt = await call(h.app, 'GET', '/api/v1/auth/me', undefined, { token: 'a.b.c' });
    expectError(badJwt, 401, 'UNAUTHORIZED');
    assert.equal(challenge(badJwt), 'Bearer realm="agent-wallet", error="invalid_token"');
    const login = await call(h.app, 'POST', '/api/v1/auth/login', {
      email: 'nobody@example.com',
      password: 'not the password',
    });
    expectError(login, 401, 'INVALID_CREDENTIALS');
    assert.equal(challenge(login), 'Bearer realm="agent-wallet"');
  });

  test('/.well-known/* that does not exist is a JSON 404 in the envelope; the dashboard still serves its pages', async () => {
    // The OAuth metadata exists (test/oauth.test.ts); OpenID's and anything else do not.
    for (const path of [
      '/.well-known/oauth-protected-resource/other',
      '/.well-known/openid-configuration',
      '/.well-known/security.txt',
    ]) {
      const reply = await h.app.inject({ method: 'GET', url: path });
      assert.equal(reply.statusCode, 404, `${path}: ${reply.body}`);
      assert.match(String(reply.headers['content-type']), /^application\/json/);
      const body = JSON.parse(reply.body);
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'NOT_FOUND');
    }
    const page = await h.app.inject({ method: 'GET', url: '/wallets/some-client-route' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>dashboard<\/title>/);
  });
});
