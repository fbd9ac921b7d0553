// The official MCP SDK client against a real service process: over Streamable HTTP (POST /mcp) and over
// stdio through `agent-wallet mcp`. Same keys, scopes, policies, limits and idempotency as the REST tools.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OUTSIDE_ADDRESS } from './support/agent.helpers.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');

async function json(base: string, method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  return { status: response.status, body: (await response.json()) as any };
}

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

function textOf(result: unknown): string {
  const content = (result as ToolResult).content;
  return content.map((c) => c.text ?? '').join('');
}

describe('MCP', () => {
  let service: ServiceProcess;
  let token: string;
  let walletId: string;
  const clients: Client[] = [];

  before(async () => {
    service = await startServiceProcess({ RATE_LIMITS: '{"send_payment":6,"signup":100}' });
    token = (
      await json(service.url, 'POST', '/api/v1/auth/signup', undefined, {
        email: 'mcp@example.test',
        password: 'a long enough password',
      })
    ).body.data.token;
    await json(service.url, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '100' });
    walletId = (await json(service.url, 'POST', '/api/v1/agent-wallets', token, { label: 'mcp' })).body.data
      .id;
    await json(service.url, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '50' });
    await json(service.url, 'POST', `/api/v1/agent-wallets/${walletId}/policies`, token, {
      type: 'spend_cap_per_tx',
      params: { limit: '10' },
    });
  });

  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await service.stop();
  });

  async function newKey(scopes?: string[]) {
    const created = await json(service.url, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, {
      label: 'mcp',
      ...(scopes === undefined ? {} : { scopes }),
    });
    return { key: created.body.data.key as string, id: created.body.data.id as string };
  }

  async function httpClient(key: string): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', service.url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function stdioClient(key: string): Promise<Client> {
    const client = new Client({ name: 'test-stdio', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: {
        ...(process.env as Record<string, string>),
        AGENT_WALLET_API_KEY: key,
        AGENT_WALLET_URL: service.url,
      },
      stderr: 'ignore',
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  for (const [name, connect] of [
    ['Streamable HTTP', (key: string) => httpClient(key)],
    ['stdio bridge', (key: string) => stdioClient(key)],
  ] as const) {
    test(`${name}: lists the tools the key's scopes allow and calls each`, async () => {
      const { key } = await newKey();
      const client = await connect(key);
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(tools, [
        'check_balance',
        'check_payment',
        'get_tx_history',
        'request_approval',
        'send_payment',
      ]);
      const listed = (await client.listTools()).tools.find((t) => t.name === 'send_payment');
      const required = (listed?.inputSchema as { required?: string[] } | undefined)?.required ?? [];
      // Every param is listed as required (OpenAI's strict mode); idempotencyKey is required over MCP and not
      // nullable, memo is optional: nullable.
      assert.deepEqual([...required].sort(), ['amount', 'idempotencyKey', 'memo', 'toAddress']);
      assert.ok(listed !== undefined);
      const properties = (listed.inputSchema as { properties: Record<string, Record<string, unknown>> })
        .properties;
      assert.equal(properties.idempotencyKey?.type, 'string', 'required over MCP');
      assert.deepEqual(properties.memo?.type, ['string', 'null'], 'memo admits null');

      const balance = (await client.callTool({ name: 'check_balance', arguments: {} })) as ToolResult;
      assert.equal(balance.isError ?? false, false, textOf(balance));
      assert.equal(balance.structuredContent?.walletId, walletId);
      const paid = (await client.callTool({
        name: 'send_payment',
        arguments: {
          toAddress: OUTSIDE_ADDRESS,
          amount: '1.5',
          memo: `via ${name}`,
          idempotencyKey: `mcp-${name}`,
        },
      })) as ToolResult;
      assert.equal(paid.structuredContent?.status, 'completed', textOf(paid));
      const replay = (await client.callTool({
        name: 'send_payment',
        arguments: {
          toAddress: OUTSIDE_ADDRESS,
          amount: '1.5',
          memo: `via ${name}`,
          idempotencyKey: `mcp-${name}`,
        },
      })) as ToolResult;
      assert.equal(replay.structuredContent?.txId, paid.structuredContent?.txId, 'idempotent over MCP too');
      const asked = (await client.callTool({
        name: 'request_approval',
        arguments: {
          toAddress: OUTSIDE_ADDRESS,
          amount: '2',
          reason: 'needs a human',
          idempotencyKey: `ask-${name}`,
        },
      })) as ToolResult;
      assert.equal(asked.structuredContent?.status, 'pending', textOf(asked));
      const history = (await client.callTool({
        name: 'get_tx_history',
        arguments: { limit: 5 },
      })) as ToolResult;
      const transactions = history.structuredContent?.transactions as Array<{ memo: string | null }>;
      assert.ok(transactions.some((t) => t.memo === `via ${name}`));
      const bad = (await client.callTool({
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: 1 },
      })) as ToolResult;
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /^VALIDATION_ERROR: amount must be a decimal string/);
      const checked = (await client.callTool({
        name: 'check_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '1' },
      })) as ToolResult;
      assert.equal(checked.structuredContent?.allowed, true, textOf(checked));
      // The key in _meta (relayed by the bridge too) makes a retry a replay as well.
      const byMeta = { name: 'send_payment', arguments: { toAddress: OUTSIDE_ADDRESS, amount: '0.5' } };
      const first = (await client.callTool({
        ...byMeta,
        _meta: { idempotencyKey: `meta-${name}` },
      })) as ToolResult;
      const retried = (await client.callTool({
        ...byMeta,
        _meta: { idempotencyKey: `meta-${name}` },
      })) as ToolResult;
      assert.equal(first.structuredContent?.status, 'completed', textOf(first));
      assert.equal(retried.structuredContent?.txId, first.structuredContent?.txId, 'a replay through _meta');
    });

    test(`${name}: a denial is a tool result the SDK client accepts, with the violations in structuredContent`, async () => {
      const { key } = await newKey();
      const client = await connect(key);
      await client.listTools(); // the client now validates structuredContent against each outputSchema
      const denied = (await client.callTool({
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '20', idempotencyKey: `deny-${name}` },
      })) as ToolResult;
      assert.equal(denied.isError, true);
      assert.match(textOf(denied), /^POLICY_DENIED: /);
      const structured = denied.structuredContent as {
        code: string;
        violations: Array<{ policyType: string }>;
        data: { status: string };
      };
      assert.equal(structured.code, 'POLICY_DENIED');
      assert.equal(structured.violations[0]?.policyType, 'spend_cap_per_tx');
      assert.equal(structured.data.status, 'rejected');
    });

    test(`${name}: every tool declares an outputSchema its structuredContent meets`, async () => {
      const { key } = await newKey();
      const client = await connect(key);
      for (const tool of (await client.listTools()).tools) {
        assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an outputSchema`);
      }
      // The SDK's client validates structuredContent against the listed outputSchema on every call.
      const balance = (await client.callTool({ name: 'check_balance', arguments: {} })) as ToolResult;
      assert.equal(balance.isError ?? false, false, textOf(balance));
    });

    test(`${name}: the balance and recent transactions are resources`, async () => {
      const { key } = await newKey();
      const client = await connect(key);
      const listed = (await client.listResources()).resources.map((r) => r.uri).sort();
      assert.deepEqual(listed, [
        'agent-wallet://wallet/balance',
        'agent-wallet://wallet/transactions/recent',
      ]);
      const read = await client.readResource({ uri: 'agent-wallet://wallet/balance' });
      const balance = JSON.parse(String((read.contents[0] as { text: string }).text));
      assert.equal(balance.walletId, walletId);
      const recent = await client.readResource({ uri: 'agent-wallet://wallet/transactions/recent' });
      const history = JSON.parse(String((recent.contents[0] as { text: string }).text));
      assert.ok(Array.isArray(history.transactions));
      assert.equal(history.limit, 20);
      await assert.rejects(client.readResource({ uri: 'agent-wallet://wallet/keys' }), /no resource/);
      const writeOnly = await connect((await newKey(['write'])).key);
      assert.deepEqual((await writeOnly.listResources()).resources, [], 'a write-only key sees none');
    });

    test(`${name}: a read key does not see send_payment and cannot call it`, async () => {
      const { key } = await newKey(['read']);
      const client = await connect(key);
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(tools, ['check_balance', 'check_payment', 'get_tx_history']);
      const refused = (await client.callTool({
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '1' },
      })) as ToolResult;
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^INSUFFICIENT_SCOPE: .*"write"/);
    });

    test(`${name}: a revoked key is refused`, async () => {
      const { key, id } = await newKey();
      const client = await connect(key);
      assert.equal(
        ((await client.callTool({ name: 'check_balance', arguments: {} })) as ToolResult).isError ?? false,
        false,
      );
      await json(service.url, 'POST', `/api/v1/agent-wallets/${walletId}/keys/${id}/revoke`, token);
      await assert.rejects(
        client.callTool({ name: 'check_balance', arguments: {} }),
        /401|MCP_AUTH_INVALID|Unauthorized/i,
      );
    });
  }

  test('Streamable HTTP: no key or a bad key is refused before MCP starts', async () => {
    const noKey = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(noKey.status, 401);
    assert.equal(((await noKey.json()) as { error: { code: string } }).error.code, 'MCP_AUTH_MISSING');
    await assert.rejects(httpClient(`svc_live_${'z'.repeat(43)}`), /401|MCP_AUTH_INVALID|Unauthorized/i);
  });

  test('stdio bridge: a bad key is named MCP_AUTH_INVALID with what to check, to the desktop client and on stderr', async () => {
    const badKey = `svc_live_${'z'.repeat(43)}`;
    const env = {
      ...(process.env as Record<string, string>),
      AGENT_WALLET_API_KEY: badKey,
      AGENT_WALLET_URL: service.url,
    };
    // As the wire carries it: the desktop client's initialize is answered with a JSON-RPC error.
    const bridge = spawn(process.execPath, [CLI, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    bridge.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((done) => bridge.on('exit', (code) => done(code)));
    const lines = createInterface({ input: bridge.stdout });
    // A bridge that exits without answering fails here (it used to, with only the SDK's words on stderr).
    const firstLine = Promise.race([
      new Promise<string>((done) => lines.once('line', done)),
      exited.then((code) => {
        throw new Error(`the bridge exited (${code}) without answering; stderr: ${stderr}`);
      }),
    ]);
    bridge.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'host', version: '1' },
        },
      })}\n`,
    );
    const answer = JSON.parse(await firstLine);
    assert.equal(answer.id, 7);
    assert.equal(answer.result, undefined);
    assert.match(
      answer.error.message,
      /^MCP_AUTH_INVALID: the API key is unknown, revoked or expired; check AGENT_WALLET_API_KEY/,
    );
    assert.deepEqual(answer.error.data, { code: 'MCP_AUTH_INVALID' });
    bridge.stdin.end();
    assert.equal(await exited, 1);
    lines.close();
    assert.match(stderr, /agent-wallet mcp: MCP_AUTH_INVALID: .*check AGENT_WALLET_API_KEY/);
    assert.ok(stderr.includes(service.url), stderr);
    assert.doesNotMatch(stderr, /Version negotiation failed/);
    assert.ok(!stderr.includes(badKey), 'the key is never echoed');

    // As a desktop host sees it: the official client's connect fails with those words.
    const host = new Client({ name: 'host', version: '1.0.0' });
    await assert.rejects(
      host.connect(
        new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env, stderr: 'ignore' }),
      ),
      /MCP_AUTH_INVALID: .*check AGENT_WALLET_API_KEY/,
    );
    await host.close();
  });

  test('MCP tools/call shares the per-key, per-tool bucket with the REST tool route', async () => {
    const { key } = await newKey();
    const client = await httpClient(key);
    const rest = () =>
      json(service.url, 'POST', '/mcp/v1/tools/send_payment', key, {
        params: { toAddress: OUTSIDE_ADDRESS, amount: '0.01' },
      });
    const mcp = async () =>
      (await client.callTool({
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '0.01', idempotencyKey: randomUUID() },
      })) as ToolResult;
    for (let i = 0; i < 3; i += 1) assert.equal((await rest()).status, 200);
    for (let i = 0; i < 3; i += 1) assert.equal((await mcp()).isError ?? false, false);
    const limited = await mcp();
    assert.equal(limited.isError, true);
    assert.match(
      textOf(limited),
      /^RATE_LIMITED: rate limit exceeded: 6 requests per minute for send_payment/,
    );
    const retryAfter = limited.structuredContent?.retryAfter;
    assert.ok(typeof retryAfter === 'number' && retryAfter >= 1, JSON.stringify(limited.structuredContent));
    assert.equal((await rest()).status, 429);
  });
});
