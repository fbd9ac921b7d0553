// RateLimitError from the real server's limiter (seed section 7): a server allowing 2 check_balance calls
// per minute per key refuses the 3rd with 429, and the SDK exposes Retry-After as `retryAfter`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AgentWalletClient, isAgentWalletError, RateLimitError } from '../src/index.ts';
import { newAgent, recordingSleep, rejection } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('RateLimitError from the real server', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ rateLimits: { check_balance: 2 } });
  });
  after(() => server?.stop());

  test('the 3rd check_balance in a minute throws RateLimitError with retryAfter = Retry-After', async () => {
    const { apiKey } = await newAgent(server.url);
    // Record the raw response too, to compare with the header the server actually sent.
    const responses: Response[] = [];
    const agent = new AgentWalletClient({
      baseUrl: server.url,
      apiKey: apiKey.key,
      maxRetries: 0,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        responses.push(response.clone());
        return response;
      },
    });
    await agent.checkBalance();
    await agent.checkBalance();
    const error = await rejection(() => agent.checkBalance());
    const last = responses.at(-1)!;
    assert.ok(
      error instanceof RateLimitError,
      `expected RateLimitError on the 3rd call with RATE_LIMITS={"check_balance":2}, got ${
        isAgentWalletError(error) ? `${error.code} (HTTP ${error.status})` : `no error (HTTP ${last.status})`
      }: does the server rate limit tool calls yet?`,
    );
    assert.equal(error.status, 429);
    assert.equal(error.code, 'RATE_LIMITED');
    const header = last.headers.get('retry-after');
    assert.match(header ?? '', /^[1-9][0-9]*$/, 'Retry-After is a whole number of seconds ≥ 1');
    assert.equal(error.retryAfter, Number(header));
    assert.ok(error.retryAfter >= 1 && error.retryAfter <= 60);
    assert.equal(error.rateLimit.limit, 2);
    assert.equal(error.rateLimit.remaining, 0);
    assert.match(error.requestId ?? '', /\S/);
  });

  test('with maxRetries, the SDK waits Retry-After before trying again', async () => {
    const { apiKey } = await newAgent(server.url);
    const recorder = recordingSleep();
    const agent = new AgentWalletClient({
      baseUrl: server.url,
      apiKey: apiKey.key,
      maxRetries: 1,
      sleep: recorder.sleep,
    });
    await agent.checkBalance();
    await agent.checkBalance();
    // The recording sleep does not really wait, so the retry is refused again and its error surfaces.
    const error = await rejection(() => agent.checkBalance());
    assert.ok(error instanceof RateLimitError, String(error));
    assert.deepEqual(recorder.delays.length, 1);
    assert.ok(recorder.delays[0]! >= 1_000 && recorder.delays[0]! <= 60_000, String(recorder.delays[0]));
    assert.equal(recorder.delays[0], error.retryAfter * 1000);
  });

  test('other tools have their own bucket: a limited check_balance does not block get_tx_history', async () => {
    const { agent } = await newAgent(server.url, { client: { maxRetries: 0 } });
    await agent.checkBalance();
    await agent.checkBalance();
    assert.ok((await rejection(() => agent.checkBalance())) instanceof RateLimitError);
    assert.equal((await agent.getTxHistory()).page, 1);
  });
});
