// POST /mcp speaks MCP revision 2026-07-28 (no handshake; server/discover) and still the 2025 revisions a client
// asks for in initialize (contract section 4), one endpoint for both, against one real service process: the
// official v2 client (@modelcontextprotocol/client) on 2026-07-28, the 1.x client (@modelcontextprotocol/sdk)
// on 2025-11-25 and 2025-06-18, handshake-free requests as they go over the wire, and the stdio bridge on
// 2026-07-28 (mcp.test.ts drives it with the 1.x client).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { OUTSIDE_ADDRESS } from './support/agent.helpers.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request } from './support/service-http.ts';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1' },
};

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON-RPC bodies
type Json = any;

const textOf = (result: ToolResult) => result.content.map((c) => c.text ?? '').join('');

describe('MCP revisions on one endpoint: 2026-07-28 and the 2025 ones', () => {
  let service: ServiceProcess;
  let keys: { full: string; read: string };
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    service = await startServiceProcess({ RATE_LIMITS: '{"signup":100}' });
    keys = await walletKeys(service.url);
  });
  after(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await service.stop();
  });

  async function modernClient(key: string, mode: 'auto' | { pin: string } = { pin: MODERN }) {
    const client = new ClientV2({ name: 'v2-test', version: '1' }, { versionNegotiation: { mode } });
    await client.connect(
      new TransportV2(new URL('/mcp', service.url), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    closers.push(() => client.close());
    return client;
  }

  /** The 1.x client asks for 2025-11-25; for an older revision its initialize is rewritten on the way out. */
  async function client1(key: string, version: string) {
    const transport = new Transport1(new URL('/mcp', service.url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
      send(Array.isArray(message) ? message : askingFor(message, version), options);
    const client = new Client1({ name: 'v1-test', version: '1' });
    await client.connect(transport);
    closers.push(() => client.close());
    return { client, transport };
  }

  const mcp = (key: string, body: unknown, headers: Record<string, string>) =>
    fetch(new URL('/mcp', service.url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  test('the v2 client on 2026-07-28: server/discover, tools/list, a payment, a denial, a replay', async () => {
    const client = await modernClient(keys.full);
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    const discovered = await client.discover();
    assert.ok(discovered.supportedVersions.includes(MODERN), JSON.stringify(discovered));
    assert.equal(
      client.getServerVersion()?.name,
      'agent-wallet',
      'the server names itself on the modern era',
    );
    assert.ok(discovered.capabilities.tools, 'tools are a capability');
    const tools = (await client.listTools()).tools;
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'check_balance',
      'check_payment',
      'get_tx_history',
      'request_approval',
      'send_payment',
    ]);
    const send = tools.find((t) => t.name === 'send_payment');
    assert.ok((send?.inputSchema.required ?? []).includes('idempotencyKey'), 'required over MCP');

    const idempotencyKey = randomUUID();
    const args = { toAddress: OUTSIDE_ADDRESS, amount: '1.5', idempotencyKey };
    const paid = (await client.callTool({ name: 'send_payment', arguments: args })) as ToolResult;
    assert.equal(paid.isError ?? false, false, textOf(paid));
    assert.equal(paid.structuredContent?.status, 'completed', textOf(paid));
    const replayed = (await client.callTool({ name: 'send_payment', arguments: args })) as ToolResult;
    assert.equal(replayed.structuredContent?.txId, paid.structuredContent?.txId, 'a retry is a replay');

    const denied = (await client.callTool({
      name: 'send_payment',
      arguments: { toAddress: OUTSIDE_ADDRESS, amount: '20', idempotencyKey: randomUUID() },
    })) as ToolResult;
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /^POLICY_DENIED: /);
    const structured = denied.structuredContent as Json;
    assert.equal(structured.code, 'POLICY_DENIED');
    assert.equal(structured.violations[0].policyType, 'spend_cap_per_tx');
    assert.equal(structured.data.status, 'rejected');

    const resource = await client.readResource({ uri: 'agent-wallet://wallet/balance' });
    assert.match(String((resource.contents[0] as { text: string }).text), /"balance"/);
  });

  test('the v2 client in auto mode (probe, then fall back) settles on 2026-07-28', async () => {
    const client = await modernClient(keys.read, 'auto');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, ['check_balance', 'check_payment', 'get_tx_history'], 'the key’s scopes');
  });

  for (const version of ['2025-11-25', '2025-06-18']) {
    test(`the 1.x client on ${version}: initialize, tools/list, a payment, a denial`, async () => {
      const { client, transport } = await client1(keys.full, version);
      assert.equal(transport.protocolVersion, version, 'the server agreed to the revision asked for');
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes('send_payment'));
      const paid = (await client.callTool({
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '1', idempotencyKey: randomUUID() },
      })) as ToolResult;
      assert.equal(paid.structuredContent?.status, 'completed', textOf(paid));
      const denied = (await client.callTool({
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '20', idempotencyKey: randomUUID() },
      })) as ToolResult;
      assert.equal(denied.isError, true);
      assert.equal((denied.structuredContent as Json).code, 'POLICY_DENIED');
    });
  }

  test('the stdio bridge speaks 2026-07-28 to a v2 client and relays to the service', async () => {
    const client = new ClientV2(
      { name: 'v2-stdio', version: '1' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [resolve(import.meta.dirname, '../bin/agent-wallet.js'), 'mcp'],
        env: {
          ...(process.env as Record<string, string>),
          AGENT_WALLET_API_KEY: keys.full,
          AGENT_WALLET_URL: service.url,
        },
        stderr: 'ignore',
      }),
    );
    closers.push(() => client.close());
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'send_payment'));
    const idempotencyKey = randomUUID();
    const call = () =>
      client.callTool({
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '1', memo: 'over stdio' },
        _meta: { idempotencyKey },
      }) as Promise<ToolResult>;
    const paid = await call();
    assert.equal(paid.structuredContent?.status, 'completed', textOf(paid));
    assert.equal((await call()).structuredContent?.txId, paid.structuredContent?.txId, '_meta goes through');
  });

  test('a handshake-free tools/list and tools/call, as on the wire, answer JSON', async () => {
    const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
    const listed = await mcp(keys.read, rpc('tools/list', { _meta: ENVELOPE }), headers);
    assert.equal(listed.status, 200);
    assert.match(listed.headers.get('content-type') ?? '', /application\/json/);
    const names = ((await listed.json()) as Json).result.tools.map((t: { name: string }) => t.name).sort();
    assert.deepEqual(names, ['check_balance', 'check_payment', 'get_tx_history']);

    const called = await mcp(
      keys.read,
      rpc('tools/call', {
        name: 'send_payment',
        arguments: { toAddress: OUTSIDE_ADDRESS, amount: '1' },
        _meta: ENVELOPE,
      }),
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'send_payment' },
    );
    const refused = ((await called.json()) as Json).result;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /^INSUFFICIENT_SCOPE: /);
  });

  test('a revision the server does not speak is refused with the ones it does', async () => {
    const future = { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    const reply = await mcp(keys.read, rpc('tools/list', { _meta: future }), {
      'mcp-protocol-version': '2099-01-01',
      'mcp-method': 'tools/list',
    });
    assert.equal(reply.status, 400);
    const body = (await reply.json()) as Json;
    assert.equal(body.error.code, -32022);
    assert.deepEqual(body.error.data.supported, [MODERN]);
  });

  test('initialize asking for 2026-07-28 gets the newest 2025 revision (2026-07-28 has no handshake)', async () => {
    const reply = await mcp(
      keys.read,
      rpc('initialize', {
        protocolVersion: MODERN,
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
      {},
    );
    assert.equal(reply.status, 200);
    assert.equal(((await reply.json()) as Json).result.protocolVersion, '2025-11-25');
  });

  test('no key is refused before MCP, whatever the revision', async () => {
    const reply = await fetch(new URL('/mcp', service.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify(rpc('server/discover', { _meta: ENVELOPE })),
    });
    assert.equal(reply.status, 401);
    assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer/);
  });
});

let nextId = 1;
function rpc(method: string, params: Record<string, unknown>) {
  return { jsonrpc: '2.0', id: nextId++, method, params };
}

function askingFor(message: JSONRPCMessage, version: string): JSONRPCMessage {
  if (!('method' in message) || message.method !== 'initialize') return message;
  return { ...message, params: { ...message.params, protocolVersion: version } };
}

/** A funded wallet with a 10 USDC per-payment cap, and two keys: read+write and read only. */
async function walletKeys(base: string): Promise<{ full: string; read: string }> {
  const signup = await request(base, 'POST', '/api/v1/auth/signup', undefined, {
    email: 'revisions@example.test',
    password: 'a long enough password',
  });
  const token = signup.body.data.token;
  await request(base, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '100' });
  const walletId = (await request(base, 'POST', '/api/v1/agent-wallets', token, { label: 'rev' })).body.data
    .id;
  await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '50' });
  await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/policies`, token, {
    type: 'spend_cap_per_tx',
    params: { limit: '10' },
  });
  const key = async (scopes: string[]) =>
    (await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, { label: 'rev', scopes }))
      .body.data.key as string;
  return { full: await key(['read', 'write']), read: await key(['read']) };
}
