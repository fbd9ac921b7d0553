// What a real server does not produce on demand, with an injected fetch: request shape, header parsing,
// error mapping of codes this SDK version does not know, and option checks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { retryAfterSeconds } from '../src/errors.ts';
import { newIdempotencyKey } from '../src/http.ts';
import {
  AgentWalletClient,
  AgentWalletError,
  AuthenticationError,
  ConflictError,
  type FetchInit,
  type FetchLike,
  ManagementClient,
  NotFoundError,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../src/index.ts';
import { rejection } from './support/fixtures.ts';

interface Sent {
  url: string;
  init: FetchInit;
}

/** A fetch answering `status` with `body` (JSON unless a string) and `headers`, recording the requests. */
function fakeFetch(status: number, body: unknown, headers: Record<string, string> = {}) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, init });
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return new Response(text, { status, headers: { 'content-type': 'application/json', ...headers } });
  };
  return { fetch, sent };
}

const headers = (values: Record<string, string>) => new Headers(values);

describe('request shape', () => {
  test('a tool call: POST {baseUrl}/mcp/v1/tools/<name>, {"params": …}, bearer key, Idempotency-Key', async () => {
    const { fetch, sent } = fakeFetch(200, { success: true, tool: 'send_payment', data: { txId: 'tx_1' } });
    const agent = new AgentWalletClient({
      baseUrl: 'https://pay.example.com/wallet/',
      apiKey: 'svc_live_k',
      fetch,
    });
    const data = await agent.sendPayment({ toAddress: '0xabc', amount: '1.5', memo: 'm' });
    assert.deepEqual(data, { txId: 'tx_1' });
    const [{ url, init }] = sent as [Sent];
    assert.equal(url, 'https://pay.example.com/wallet/mcp/v1/tools/send_payment');
    assert.equal(init.method, 'POST');
    assert.equal(init.headers.authorization, 'Bearer svc_live_k');
    assert.equal(init.headers['content-type'], 'application/json');
    assert.match(
      init.headers['idempotency-key'] ?? '',
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.deepEqual(JSON.parse(init.body!), { params: { toAddress: '0xabc', amount: '1.5', memo: 'm' } });
  });

  test('read tools send no Idempotency-Key; the caller’s key moves from params to the header', async () => {
    const { fetch, sent } = fakeFetch(200, { success: true, data: {} });
    const agent = new AgentWalletClient({ baseUrl: 'http://h', apiKey: 'svc_live_k', fetch });
    await agent.getTxHistory({ page: 2, status: 'pending' });
    await agent.requestApproval({ toAddress: '0xabc', amount: '1', idempotencyKey: 'mine' });
    assert.equal(sent[0]?.init.headers['idempotency-key'], undefined);
    assert.deepEqual(JSON.parse(sent[0]!.init.body!), { params: { page: 2, status: 'pending' } });
    assert.equal(sent[1]?.init.headers['idempotency-key'], 'mine');
    assert.deepEqual(JSON.parse(sent[1]!.init.body!), { params: { toAddress: '0xabc', amount: '1' } });
  });

  test('callTool: a fallback idempotency key for write tools only; params must be an object', async () => {
    const { fetch, sent } = fakeFetch(200, { success: true, data: {} });
    const agent = new AgentWalletClient({ baseUrl: 'http://h', apiKey: 'svc_live_k', fetch });
    await agent.callTool('send_payment', { toAddress: '0xabc', amount: '1' }, { idempotencyKey: 'toolu_01' });
    await agent.callTool('check_balance', {}, { idempotencyKey: 'toolu_02' });
    await agent.callTool(
      'send_payment',
      { toAddress: '0xabc', amount: '1', idempotencyKey: 'own' },
      { idempotencyKey: 'x' },
    );
    assert.deepEqual(
      sent.map((s) => s.init.headers['idempotency-key']),
      ['toolu_01', undefined, 'own'],
    );
    await assert.rejects(() => agent.callTool('check_balance', 'nope'), TypeError);
    const mgmt = new ManagementClient({ baseUrl: 'http://h', fetch });
    await assert.rejects(() => mgmt.agentWallets.get(''), TypeError);
  });

  test('REST: query strings without undefined values, encoded ids, no body on bodiless POSTs', async () => {
    const { fetch, sent } = fakeFetch(200, { success: true, data: {} });
    const mgmt = new ManagementClient({ baseUrl: 'http://h', token: 'jwt', fetch });
    await mgmt.transactions.list('wal/1', { status: 'completed', limit: 5 });
    await mgmt.agentWallets.freeze('wal 2');
    assert.equal(sent[0]?.url, 'http://h/api/v1/agent-wallets/wal%2F1/transactions?limit=5&status=completed');
    assert.equal(sent[0]?.init.method, 'GET');
    assert.equal(sent[0]?.init.headers.authorization, 'Bearer jwt');
    assert.equal(sent[1]?.url, 'http://h/api/v1/agent-wallets/wal%202/freeze');
    assert.equal(sent[1]?.init.body, undefined);
    assert.equal(sent[1]?.init.headers['content-type'], undefined);
  });

  test('generated idempotency keys are distinct UUIDs', () => {
    const keys = new Set(Array.from({ length: 100 }, () => newIdempotencyKey()));
    assert.equal(keys.size, 100);
  });
});

describe('error mapping', () => {
  test('codes this SDK does not know get the class of their status family', async () => {
    const cases: Array<[number, new (...args: never[]) => AgentWalletError]> = [
      [400, ValidationError],
      [401, AuthenticationError],
      [404, NotFoundError],
      [409, ConflictError],
      [503, ServerError],
      [418, AgentWalletError],
    ];
    for (const [status, Class] of cases) {
      const { fetch } = fakeFetch(status, {
        success: false,
        error: { code: 'SOMETHING_NEW', message: 'new', hint: 1 },
      });
      const error = await rejection(() => new ManagementClient({ baseUrl: 'http://h', fetch }).me());
      assert.ok(error instanceof Class, `${status}: ${String(error)}`);
      assert.equal((error as AgentWalletError).code, 'SOMETHING_NEW');
      assert.deepEqual((error as AgentWalletError).details, { hint: 1 });
    }
  });

  test('a 429 without Retry-After falls back to RateLimit-Reset, then to 1 second', async () => {
    const body = { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } };
    const withReset = fakeFetch(429, body, {
      'ratelimit-reset': '12',
      'ratelimit-limit': '5',
      'ratelimit-remaining': '0',
    });
    const error = await rejection(() =>
      new ManagementClient({ baseUrl: 'http://h', fetch: withReset.fetch }).me(),
    );
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfter, 12);
    assert.deepEqual(error.rateLimit, { limit: 5, remaining: 0, reset: 12 });
    const bare = fakeFetch(429, 'Too Many Requests');
    const plain = await rejection(() =>
      new ManagementClient({ baseUrl: 'http://h', fetch: bare.fetch }).me(),
    );
    assert.ok(plain instanceof RateLimitError);
    assert.equal(plain.code, 'RATE_LIMITED');
    assert.equal(plain.retryAfter, 1);
  });

  test('Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterSeconds(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:09 GMT' }), now), 9);
    assert.equal(retryAfterSeconds(headers({ 'retry-after': '3' }), now), 3);
    assert.equal(retryAfterSeconds(headers({ 'retry-after': '0' }), now), 1);
  });

  test('a fetch that throws something odd is a NetworkError', async () => {
    const agent = new AgentWalletClient({
      baseUrl: 'http://h',
      apiKey: 'svc_live_k',
      fetch: async () => {
        throw 'boom';
      },
    });
    const error = await rejection(() => agent.checkBalance());
    assert.ok(error instanceof AgentWalletError);
    assert.equal(error.name, 'NetworkError');
    assert.equal(error.cause, 'boom');
  });
});

describe('options', () => {
  test('invalid options are refused when the client is made', () => {
    const base = { baseUrl: 'http://h', apiKey: 'svc_live_k' };
    assert.throws(() => new AgentWalletClient({ ...base, maxRetries: -1 }), /maxRetries/);
    assert.throws(() => new AgentWalletClient({ ...base, timeoutMs: Number.NaN }), /timeoutMs/);
    assert.throws(() => new AgentWalletClient({ ...base, baseUrl: 'ftp://h' }), /http/);
    assert.throws(() => new ManagementClient({ baseUrl: '' }), /baseUrl/);
  });
});
