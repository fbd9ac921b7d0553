// Retry behaviour, through a fault-injecting proxy in front of the real server: what is retried, how long
// the SDK waits, that a payment retried with its idempotency key happens exactly once, and what is never
// retried.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  AgentWalletClient,
  AgentWalletError,
  ManagementClient,
  NetworkError,
  PolicyDeniedError,
  RateLimitError,
  ServerError,
  ValidationError,
} from '../src/index.ts';
import { type Agent, externalAddress, newAgent, recordingSleep, rejection } from './support/fixtures.ts';
import { type FaultProxy, type RecordedRequest, startProxy } from './support/proxy.ts';
import { startServer, type TestServer } from './support/server.ts';

const BASE_DELAY_MS = 10;
const isPayment = (_method: string, path: string) => path === '/mcp/v1/tools/send_payment';
const isFund = (_method: string, path: string) => path.endsWith('/fund');

describe('retries', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  before(async () => {
    server = await startServer();
    proxy = await startProxy(server.url);
  });
  after(async () => {
    await proxy?.close();
    await server?.stop();
  });
  beforeEach(() => proxy.reset());

  /** An agent whose AgentWalletClient goes through the proxy, with retries and a recording sleep. */
  async function agentBehindProxy(maxRetries: number, extra: { timeoutMs?: number } = {}) {
    const recorder = recordingSleep();
    const setup = await newAgent(server.url);
    const agent = new AgentWalletClient({
      baseUrl: proxy.url,
      apiKey: setup.apiKey.key,
      maxRetries,
      retryBaseDelayMs: BASE_DELAY_MS,
      sleep: recorder.sleep,
      ...extra,
    });
    return { ...setup, agent, delays: recorder.delays };
  }

  /** The owner's client through the proxy, with retries and a recording sleep. */
  function ownerBehindProxy(setup: Agent, maxRetries: number) {
    const recorder = recordingSleep();
    const mgmt = new ManagementClient({
      baseUrl: proxy.url,
      token: setup.mgmt.token!,
      maxRetries,
      retryBaseDelayMs: BASE_DELAY_MS,
      sleep: recorder.sleep,
    });
    return { mgmt, delays: recorder.delays };
  }

  function matching(predicate: (method: string, path: string) => boolean): RecordedRequest[] {
    return proxy.requests.filter((r) => predicate(r.method, r.path));
  }

  async function paymentsOf(setup: Agent): Promise<number> {
    return (await setup.mgmt.transactions.list(setup.walletId)).transactions.filter(
      (t) => t.type === 'payment',
    ).length;
  }

  test('503s are retried up to maxRetries with the same Idempotency-Key; one payment results', async () => {
    const setup = await agentBehindProxy(3);
    proxy.inject({ kind: 'status', status: 503 }, { times: 2, match: isPayment });
    const result = await setup.agent.sendPayment({ toAddress: externalAddress(), amount: '5' });
    assert.equal(result.status, 'completed');

    const attempts = matching(isPayment);
    assert.deepEqual(
      attempts.map((r) => r.fault),
      ['status', 'status', null],
    );
    const keys = new Set(attempts.map((r) => r.headers['idempotency-key']));
    assert.equal(keys.size, 1, 'every attempt carries the same key');
    assert.match([...keys][0] as string, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      attempts.map((r) => r.body),
      Array(3).fill(attempts[0]?.body),
    );
    // Exponential backoff with jitter: attempt n waits between base*2^n/2 and base*2^n.
    assert.equal(setup.delays.length, 2);
    setup.delays.forEach((delay, n) => {
      assert.ok(delay >= (BASE_DELAY_MS * 2 ** n) / 2 && delay <= BASE_DELAY_MS * 2 ** n, `${n}: ${delay}`);
    });
    assert.equal(await paymentsOf(setup), 1);
    assert.equal((await setup.agent.checkBalance()).balance, '95.000000');
  });

  test('answers lost after the server paid: the retries replay it, exactly one payment', async () => {
    const setup = await agentBehindProxy(3);
    proxy.inject({ kind: 'drop-after-forward' }, { times: 2, match: isPayment });
    const result = await setup.agent.sendPayment({ toAddress: externalAddress(), amount: '7', memo: 'once' });
    assert.equal(result.status, 'completed');
    assert.equal(matching(isPayment).length, 3);
    assert.equal(new Set(matching(isPayment).map((r) => r.headers['idempotency-key'])).size, 1);

    const history = await setup.mgmt.transactions.list(setup.walletId);
    const payments = history.transactions.filter((t) => t.type === 'payment');
    assert.equal(payments.length, 1);
    assert.equal(payments[0]?.id, result.txId);
    assert.equal((await setup.agent.checkBalance()).balance, '93.000000');
  });

  test('dropped connections (network errors) are retried; requestApproval keeps its key too', async () => {
    const setup = await agentBehindProxy(2);
    const isApproval = (_m: string, path: string) => path === '/mcp/v1/tools/request_approval';
    proxy.inject({ kind: 'drop' }, { times: 1, match: isApproval });
    proxy.inject({ kind: 'drop-after-forward' }, { times: 1, match: isApproval });
    const held = await setup.agent.requestApproval({
      toAddress: externalAddress(),
      amount: '9',
      reason: 'x',
    });
    assert.equal(held.status, 'pending');
    const attempts = matching(isApproval);
    assert.deepEqual(
      attempts.map((r) => r.fault),
      ['drop', 'drop-after-forward', null],
    );
    assert.equal(new Set(attempts.map((r) => r.headers['idempotency-key'])).size, 1);
    assert.equal((await setup.mgmt.transactions.pending(setup.walletId)).total, 1);
  });

  test('the caller’s own idempotency key is the one sent on every attempt', async () => {
    const setup = await agentBehindProxy(1);
    proxy.inject({ kind: 'status', status: 500 }, { match: isPayment });
    const key = `invoice-${randomUUID()}`;
    await setup.agent.sendPayment({ toAddress: externalAddress(), amount: '1', idempotencyKey: key });
    assert.deepEqual(
      matching(isPayment).map((r) => r.headers['idempotency-key']),
      [key, key],
    );
  });

  test('after maxRetries the last error is thrown; no payment was made', async () => {
    const setup = await agentBehindProxy(2);
    proxy.inject({ kind: 'status', status: 503 }, { times: 10, match: isPayment });
    const error = await rejection(() =>
      setup.agent.sendPayment({ toAddress: externalAddress(), amount: '1' }),
    );
    assert.ok(error instanceof ServerError, String(error));
    assert.equal(error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(error.status, 503);
    assert.equal(matching(isPayment).length, 3);
    assert.equal(error.idempotencyKey, matching(isPayment)[0]?.headers['idempotency-key']);
    assert.equal(await paymentsOf(setup), 0);
  });

  test('maxRetries defaults to 2; 0 turns retries off', async () => {
    const setup = await newAgent(server.url);
    const recorder = recordingSleep();
    const byDefault = new AgentWalletClient({
      baseUrl: proxy.url,
      apiKey: setup.apiKey.key,
      sleep: recorder.sleep,
    });
    proxy.inject({ kind: 'status', status: 503 }, { match: isPayment });
    proxy.inject({ kind: 'status', status: 503 }, { match: isPayment });
    const paid = await byDefault.sendPayment({ toAddress: externalAddress(), amount: '1' });
    assert.equal(paid.status, 'completed');
    assert.equal(recorder.delays.length, 2, 'two retries');
    proxy.requests.length = 0;
    const off = new AgentWalletClient({
      baseUrl: proxy.url,
      apiKey: setup.apiKey.key,
      sleep: recorder.sleep,
      maxRetries: 0,
    });
    proxy.inject({ kind: 'status', status: 503 }, { match: isPayment });
    assert.ok(
      (await rejection(() => off.sendPayment({ toAddress: externalAddress(), amount: '1' }))) instanceof
        ServerError,
    );
    proxy.inject({ kind: 'drop' });
    assert.ok((await rejection(() => off.checkBalance())) instanceof NetworkError);
    proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' }, body: rateLimitedBody() });
    assert.ok((await rejection(() => off.checkBalance())) instanceof RateLimitError);
    assert.equal(proxy.requests.length, 3);
    assert.equal(recorder.delays.length, 2, 'no delay without retries');
  });

  test('4xx answers are never retried', async () => {
    const setup = await agentBehindProxy(3);
    await setup.mgmt.policies.create(setup.walletId, { type: 'spend_cap_per_tx', params: { limit: '1' } });
    const denied = await rejection(() =>
      setup.agent.sendPayment({ toAddress: externalAddress(), amount: '2' }),
    );
    assert.ok(denied instanceof PolicyDeniedError);
    const invalid = await rejection(() =>
      setup.agent.sendPayment({ toAddress: externalAddress(), amount: '-2' }),
    );
    assert.ok(invalid instanceof ValidationError);
    const owner = ownerBehindProxy(setup, 3);
    const missing = await rejection(() => owner.mgmt.agentWallets.get('wal_missing'));
    assert.equal((missing as AgentWalletError).status, 404);
    const auth = await rejection(() =>
      new AgentWalletClient({
        baseUrl: proxy.url,
        apiKey: `svc_live_${'z'.repeat(43)}`,
        maxRetries: 3,
      }).checkBalance(),
    );
    assert.equal((auth as AgentWalletError).status, 401);
    assert.equal(proxy.requests.length, 4);
    assert.deepEqual(setup.delays, []);
    assert.deepEqual(owner.delays, []);
  });

  test('a REST fund without an idempotency key gets a generated one: retried after a lost answer, moved once', async () => {
    const setup = await newAgent(server.url);
    const owner = ownerBehindProxy(setup, 3);
    proxy.inject({ kind: 'drop-after-forward' }, { match: isFund });
    proxy.inject({ kind: 'status', status: 503 }, { match: isFund });
    const moved = await owner.mgmt.agentWallets.fund(setup.walletId, { amount: '10' });
    assert.equal(moved.wallet.balance, '110.000000');
    const attempts = matching(isFund);
    assert.equal(attempts.length, 3);
    const keys = new Set(attempts.map((r) => r.headers['idempotency-key']));
    assert.equal(keys.size, 1, 'every attempt carries the same generated key');
    assert.match(String([...keys][0]), /^[0-9a-f-]{36}$/);
    assert.equal((await setup.mgmt.agentWallets.get(setup.walletId)).balance, '110.000000');
  });

  test('a REST fund WITH an idempotency key is retried with the same key and moves money once', async () => {
    const setup = await newAgent(server.url);
    const owner = ownerBehindProxy(setup, 3);
    proxy.inject({ kind: 'drop-after-forward' }, { match: isFund });
    proxy.inject({ kind: 'status', status: 503 }, { match: isFund });
    const key = `topup-${randomUUID()}`;
    const moved = await owner.mgmt.agentWallets.fund(setup.walletId, { amount: '10', idempotencyKey: key });
    assert.equal(moved.wallet.balance, '110.000000');
    assert.deepEqual(
      matching(isFund).map((r) => r.headers['idempotency-key']),
      [key, key, key],
    );
    assert.equal((await setup.mgmt.agentWallets.get(setup.walletId)).balance, '110.000000');
    assert.equal(owner.delays.length, 2);
  });

  test('reads are retried after 5xx and dropped connections', async () => {
    const setup = await agentBehindProxy(2);
    proxy.inject({ kind: 'status', status: 500 }, { times: 1 });
    proxy.inject({ kind: 'drop' }, { times: 1 });
    assert.equal((await setup.agent.checkBalance()).balance, '100.000000');
    const owner = ownerBehindProxy(setup, 1);
    proxy.inject({ kind: 'status', status: 502, body: '<html>bad gateway</html>' });
    assert.equal((await owner.mgmt.wallet()).currency, 'USDC');
    assert.equal(proxy.requests.length, 5);
  });

  test('a 503 with Retry-After waits at least that long (capped by retryDelayMaxMs)', async () => {
    const setup = await agentBehindProxy(2);
    proxy.inject({ kind: 'status', status: 503, headers: { 'retry-after': '3' } });
    assert.equal((await setup.agent.checkBalance()).currency, 'USDC');
    assert.deepEqual(setup.delays, [3_000]);
    const error = await rejection(async () => {
      proxy.inject({ kind: 'status', status: 503, headers: { 'retry-after': '3' } }, { times: 3 });
      await setup.agent.checkBalance();
    });
    assert.ok(error instanceof ServerError);
    assert.equal(error.retryAfter, 3);
  });

  test('TX_EXECUTION_FAILED is a final outcome: not retried', async () => {
    const setup = await agentBehindProxy(3);
    proxy.inject(
      {
        kind: 'status',
        status: 502,
        body: JSON.stringify({
          success: false,
          error: { code: 'TX_EXECUTION_FAILED', message: 'settlement failed; the funds were returned' },
          data: { txId: 'tx_failed', status: 'failed' },
        }),
      },
      { match: isPayment },
    );
    const error = await rejection(() =>
      setup.agent.sendPayment({ toAddress: externalAddress(), amount: '1' }),
    );
    assert.ok(error instanceof ServerError);
    assert.equal(error.code, 'TX_EXECUTION_FAILED');
    assert.deepEqual(error.data, { txId: 'tx_failed', status: 'failed' });
    assert.equal(matching(isPayment).length, 1);
  });

  describe('429', () => {
    test('waits exactly Retry-After seconds, then succeeds', async () => {
      const setup = await agentBehindProxy(2);
      proxy.inject(
        { kind: 'status', status: 429, headers: { 'retry-after': '7' }, body: rateLimitedBody() },
        { match: isPayment },
      );
      const paid = await setup.agent.sendPayment({ toAddress: externalAddress(), amount: '2' });
      assert.equal(paid.status, 'completed');
      assert.deepEqual(setup.delays, [7_000]);
      assert.equal(matching(isPayment).length, 2);
      assert.equal(new Set(matching(isPayment).map((r) => r.headers['idempotency-key'])).size, 1);
    });

    test('a refused request was not executed, so even a write without a key is retried after a 429', async () => {
      const setup = await newAgent(server.url, { freshOwner: true });
      const owner = ownerBehindProxy(setup, 1);
      proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '2' }, body: rateLimitedBody() });
      const created = await owner.mgmt.agentWallets.create({ label: 'after a 429' });
      assert.equal(created.label, 'after a 429');
      assert.deepEqual(owner.delays, [2_000]);
      assert.equal((await setup.mgmt.agentWallets.list()).total, 2);
    });

    test('a Retry-After above retryDelayMaxMs is not waited for: the RateLimitError is thrown at once', async () => {
      const setup = await newAgent(server.url);
      const recorder = recordingSleep();
      const agent = new AgentWalletClient({
        baseUrl: proxy.url,
        apiKey: setup.apiKey.key,
        maxRetries: 3,
        retryDelayMaxMs: 5_000,
        sleep: recorder.sleep,
      });
      proxy.inject({
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '30' },
        body: rateLimitedBody(),
      });
      const error = await rejection(() => agent.checkBalance());
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.retryAfter, 30);
      assert.deepEqual(recorder.delays, []);
      assert.equal(proxy.requests.length, 1);
    });
  });

  describe('timeouts', () => {
    test('no answer within timeoutMs: NetworkError with code TIMEOUT', async () => {
      const setup = await agentBehindProxy(0, { timeoutMs: 150 });
      proxy.inject({ kind: 'hang' });
      const started = Date.now();
      const error = await rejection(() => setup.agent.checkBalance());
      assert.ok(error instanceof NetworkError, String(error));
      assert.equal(error.code, 'TIMEOUT');
      assert.equal(error.timedOut, true);
      assert.ok(Date.now() - started < 2_000);
    });

    test('a payment that timed out while the server still ran it is retried and happens once', async () => {
      const setup = await agentBehindProxy(2, { timeoutMs: 200 });
      proxy.inject({ kind: 'delay', ms: 400 }, { match: isPayment });
      const paid = await setup.agent.sendPayment({ toAddress: externalAddress(), amount: '3' });
      assert.equal(paid.status, 'completed');
      await new Promise((done) => setTimeout(done, 400)); // let the delayed first attempt reach the server
      assert.equal(matching(isPayment).length, 2);
      assert.equal(await paymentsOf(setup), 1);
      assert.equal((await setup.agent.checkBalance()).balance, '97.000000');
    });
  });

  describe('unexpected responses', () => {
    test('a 2xx that is not an envelope: UNEXPECTED_RESPONSE, not retried', async () => {
      const setup = await agentBehindProxy(3);
      proxy.inject({ kind: 'status', status: 200, body: '<html>captive portal</html>' });
      const error = await rejection(() => setup.agent.checkBalance());
      assert.ok(error instanceof AgentWalletError);
      assert.equal(error.constructor, AgentWalletError);
      assert.equal(error.code, 'UNEXPECTED_RESPONSE');
      assert.match(error.message, /captive portal/);
      assert.equal(proxy.requests.length, 1);
    });

    test('a 4xx that is not an envelope: UNEXPECTED_RESPONSE; a 5xx one: ServerError', async () => {
      const setup = await agentBehindProxy(0);
      proxy.inject({ kind: 'status', status: 403, body: 'Forbidden by WAF' });
      const forbidden = await rejection(() => setup.agent.checkBalance());
      assert.ok(forbidden instanceof AgentWalletError);
      assert.equal(forbidden.code, 'UNEXPECTED_RESPONSE');
      assert.equal(forbidden.status, 403);
      proxy.inject({ kind: 'status', status: 504, body: '' });
      const gateway = await rejection(() => setup.agent.checkBalance());
      assert.ok(gateway instanceof ServerError);
      assert.equal(gateway.code, 'UNEXPECTED_RESPONSE');
      assert.equal(gateway.status, 504);
    });
  });
});

function rateLimitedBody(): string {
  return JSON.stringify({ success: false, error: { code: 'RATE_LIMITED', message: 'too many requests' } });
}
