import { describe, expect, it, vi } from 'vitest';
import { ApiClient, bucketOf, parseRetryAfter } from '../src/api/client.ts';
import { type ApiError, describeError, toApiError } from '../src/api/errors.ts';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string>; raw?: string } | Error;

/** A fetch that answers from a script and records every request. */
function fakeFetch(replies: Reply[]) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({
      url: String(input),
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: (init?.body as string | null) ?? null,
    });
    const reply = replies.shift();
    if (reply === undefined) throw new Error('no scripted reply left');
    if (reply instanceof Error) throw reply;
    const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    return new Response(text, { status: reply.status, headers: reply.headers });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

function client(
  replies: Reply[],
  options: { token?: string | null; onUnauthorized?: () => void; onRefused?: (code: string) => void } = {},
) {
  const { fetch, calls } = fakeFetch(replies);
  const sleeps: number[] = [];
  let now = 1_000_000;
  const api = new ApiClient({
    fetch,
    origin: 'http://dash.test',
    onUnauthorized: options.onUnauthorized,
    onRefused: options.onRefused,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    now: () => now,
  });
  api.setToken(options.token === undefined ? 'jwt-token' : (options.token ?? undefined));
  return { api, sdk: api.sdk, calls, sleeps, advance: (ms: number) => (now += ms) };
}

const ok = (data: unknown, headers?: Record<string, string>): Reply => ({
  status: 200,
  body: { success: true, data },
  headers,
});
const fail = (
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
  extra = {},
): Reply => ({
  status,
  body: { success: false, error: { code, message, ...extra } },
  headers,
});

/** The failure of a call, as the views see it (the SDK's typed error in the dashboard's words). */
async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    return toApiError(error);
  }
  throw new Error('expected a failure');
}

describe('ApiClient: the SDK over the dashboard fetch adapter', () => {
  it('returns data and sends the token, JSON and same-origin URLs', async () => {
    const { sdk, calls } = client([ok({ id: 'w1' })]);
    expect(await sdk.agentWallets.create({ label: 'bot' })).toEqual({ id: 'w1' });
    expect(calls[0]).toMatchObject({
      url: 'http://dash.test/api/v1/agent-wallets',
      method: 'POST',
      body: '{"label":"bot"}',
      headers: { authorization: 'Bearer jwt-token', 'content-type': 'application/json' },
    });
  });

  it('builds query strings, leaves out empty values and encodes ids in paths', async () => {
    const { sdk, calls } = client([ok({ transactions: [] }), ok({})]);
    await sdk.transactions.list('a/b', { page: 2, limit: 20 });
    expect(calls[0]?.url).toBe('http://dash.test/api/v1/agent-wallets/a%2Fb/transactions?page=2&limit=20');
    await sdk.agentWallets.get('../wallet?x=1');
    expect(calls[1]?.url).toBe('http://dash.test/api/v1/agent-wallets/..%2Fwallet%3Fx%3D1');
  });

  it('turns a failure envelope into words, keeping the code and the server message', async () => {
    const { sdk } = client([fail(400, 'VALIDATION_ERROR', 'amount must have at most 6 decimal places')]);
    const error = await caught(sdk.agentWallets.create({ label: 'x' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.status).toBe(400);
    expect(error.serverMessage).toBe('amount must have at most 6 decimal places');
    expect(error.message).toBe('Not accepted: Amount must have at most 6 decimal places.');
    expect(error.message).not.toContain('{');
  });

  it('carries the policy violations of a denial', async () => {
    const violations = [
      { policyId: 'p1', policyType: 'spend_cap_per_tx', reason: 'above the 10 per-payment cap' },
    ];
    const { sdk } = client([
      fail(422, 'POLICY_DENIED', 'payment denied by a policy', undefined, { violations }),
    ]);
    const error = await caught(sdk.policies.simulate('w', { toAddress: '0x', amount: '1' }));
    expect(error.violations).toEqual(violations);
    expect(error.message).toMatch(/^Blocked by a policy/);
  });

  it('words a non-JSON answer and a network failure without showing raw text', async () => {
    const { sdk } = client([
      { status: 502, raw: '<html>Bad gateway</html>' },
      new TypeError('Failed to fetch'),
    ]);
    const gateway = await caught(sdk.agentWallets.create({ label: 'x' }));
    expect(gateway.code).toBe('SERVICE_UNAVAILABLE');
    expect(gateway.message).not.toContain('<html>');
    const offline = await caught(sdk.agentWallets.create({ label: 'x' }));
    expect(offline.code).toBe('NETWORK_ERROR');
    expect(offline.message).toMatch(/cannot reach the server/i);
    expect(offline.retryable).toBe(true);
  });

  it('lets the SDK retry a read after a 5xx, never a plain write', async () => {
    const { sdk, calls } = client([{ status: 503, raw: '' }, ok({ balance: '1.000000', currency: 'USDC' })]);
    expect(await sdk.walletBalance()).toEqual({ balance: '1.000000', currency: 'USDC' });
    expect(calls).toHaveLength(2);
    const write = client([{ status: 503, raw: '' }]);
    await caught(write.sdk.agentWallets.create({ label: 'x' }));
    expect(write.calls).toHaveLength(1);
  });

  it('has friendly text for every contract error code', () => {
    for (const code of [
      'VALIDATION_ERROR',
      'UNAUTHORIZED',
      'INVALID_CREDENTIALS',
      'NOT_FOUND',
      'EMAIL_TAKEN',
      'IDEMPOTENCY_CONFLICT',
      'INVALID_STATE',
      'PAYLOAD_TOO_LARGE',
      'POLICY_DENIED',
      'INSUFFICIENT_BALANCE',
      'RATE_LIMITED',
      'INTERNAL_ERROR',
      'TX_EXECUTION_FAILED',
      'SERVICE_UNAVAILABLE',
    ]) {
      const text = describeError(code, 400, 'detail from server', 3);
      expect(text.length).toBeGreaterThan(5);
      expect(text).not.toMatch(/[{}]/);
    }
    expect(describeError('INTERNAL_ERROR', 500, 'SELECT * FROM users')).not.toContain('SELECT');
  });
});

describe('ApiClient 401', () => {
  it('ends the session on UNAUTHORIZED for an authenticated request', async () => {
    const onUnauthorized = vi.fn();
    const { sdk } = client([fail(401, 'UNAUTHORIZED', 'the session token is invalid')], { onUnauthorized });
    const error = await caught(sdk.wallet());
    expect(error.code).toBe('UNAUTHORIZED');
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('does not end anything for a wrong password at login', async () => {
    const onUnauthorized = vi.fn();
    const { sdk, calls } = client([fail(401, 'INVALID_CREDENTIALS', 'wrong email or password')], {
      onUnauthorized,
      token: null,
    });
    const error = await caught(sdk.login({ email: 'a@b.co', password: 'nope' }));
    expect(error.message).toBe('Wrong email or password.');
    expect(onUnauthorized).not.toHaveBeenCalled();
    expect(calls[0]?.headers.authorization).toBeUndefined();
  });
});

describe('ApiClient 429', () => {
  const limited = (seconds: string) =>
    fail(429, 'RATE_LIMITED', 'rate limit exceeded', {
      'retry-after': seconds,
      'ratelimit-remaining': '0',
      'ratelimit-reset': seconds,
    });

  it('waits Retry-After and retries a GET once by itself, announcing the wait', async () => {
    const { api, sdk, calls, sleeps } = client([limited('7'), ok({ balance: '1.000000' })]);
    const seen: (number | null)[] = [];
    api.subscribeWaits(() => seen.push(api.getWaitUntil()));
    expect(await sdk.walletBalance()).toEqual({ balance: '1.000000' });
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([7000]);
    expect(seen).toHaveLength(2);
    expect(typeof seen[0]).toBe('number');
    expect(seen[1]).toBeNull();
  });

  it('gives up after one retry with the wait in words', async () => {
    const { sdk, calls } = client([limited('2'), limited('4')]);
    const error = await caught(sdk.wallet());
    expect(calls).toHaveLength(2);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryAfter).toBe(4);
    expect(error.message).toBe('Too many requests — try again in 4 s');
  });

  it('does not retry a write without an Idempotency-Key: the person decides', async () => {
    const { sdk, calls, sleeps } = client([limited('5')]);
    const error = await caught(sdk.agentWallets.create({ label: 'bot' }));
    expect(calls).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error.retryAfter).toBe(5);
    expect(error.message).toBe('Too many requests — try again in 5 s');
  });

  it('retries a write that carries an Idempotency-Key, with the same key', async () => {
    const { sdk, calls, sleeps } = client([limited('3'), ok({ masterBalance: '0.000000' })]);
    await sdk.agentWallets.fund('w1', { amount: '10', idempotencyKey: 'dash-key-1' });
    expect(sleeps).toEqual([3000]);
    expect(calls.map((c) => c.headers['idempotency-key'])).toEqual(['dash-key-1', 'dash-key-1']);
    expect(calls[1]?.body).toBe('{"amount":"10"}');
  });

  it('holds back further GETs to a refused bucket instead of spending more 429s', async () => {
    const { sdk, calls, sleeps } = client([limited('10'), limited('10'), ok({ items: [] })]);
    await caught(sdk.agentWallets.list());
    expect(sleeps).toEqual([10_000]);
    // The bucket was refused again at the retry; the next GET waits before sending.
    await sdk.keys.list('w1');
    expect(sleeps).toEqual([10_000, 10_000]);
    expect(calls).toHaveLength(3);
  });

  it('reads Retry-After, falling back to RateLimit-Reset and then 5 s', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '12' }))).toBe(12);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0' }))).toBe(1);
    expect(parseRetryAfter(new Headers({ 'ratelimit-reset': '9' }))).toBe(9);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBe(5);
    expect(parseRetryAfter(new Headers())).toBe(5);
  });

  it('remembers the RateLimit headers per bucket', async () => {
    const { api, sdk, advance } = client([
      ok({}, { 'ratelimit-limit': '30', 'ratelimit-remaining': '4', 'ratelimit-reset': '20' }),
    ]);
    await sdk.agentWallets.list({ limit: 100 });
    expect(api.budget('agent_wallets')).toMatchObject({ limit: 30, remaining: 4 });
    advance(21_000);
    expect(api.budget('agent_wallets')).toBeUndefined();
  });

  it('maps paths to the server buckets', () => {
    expect(bucketOf('GET', '/api/v1/wallet')).toBe('wallet');
    expect(bucketOf('GET', '/wallet/deposits')).toBe('wallet');
    expect(bucketOf('POST', '/wallet/sandbox/deposit')).toBe('POST /wallet/sandbox/deposit');
    expect(bucketOf('POST', '/api/v1/agent-wallets/w/fund')).toBe('agent_wallets');
    expect(bucketOf('GET', '/agent-wallets')).toBe('agent_wallets');
    expect(bucketOf('POST', '/auth/login')).toBe('POST /auth/login');
  });
});

describe('refusals the whole app reacts to', () => {
  it('announces MFA_ENROLLMENT_REQUIRED and FORBIDDEN_ROLE, and still fails the request in words', async () => {
    const onRefused = vi.fn();
    const { sdk, api } = client(
      [
        fail(403, 'MFA_ENROLLMENT_REQUIRED', 'the organization requires a second factor'),
        fail(403, 'FORBIDDEN_ROLE', 'this needs the admin role or higher'),
        fail(403, 'FORBIDDEN', 'something else'),
      ],
      { onRefused },
    );
    const first = await caught(sdk.wallet());
    expect(first.code).toBe('MFA_ENROLLMENT_REQUIRED');
    expect(first.message).toMatch(/Security page/);
    const second = await caught(api.org.members());
    expect(second.code).toBe('FORBIDDEN_ROLE');
    expect(second.message).toMatch(/role/);
    await caught(sdk.wallet());
    expect(onRefused.mock.calls).toEqual([['MFA_ENROLLMENT_REQUIRED'], ['FORBIDDEN_ROLE']]);
  });

  it('signs up with an invitation: the token goes as invitationToken', async () => {
    const { api, calls } = client(
      [{ status: 201, body: { success: true, data: { user: { id: 'u' }, token: 't' } } }],
      { token: null },
    );
    await api.org.signupWithInvitation('new@x.co', 'a long password', 'tok');
    expect(calls[0]?.url).toBe('http://dash.test/api/v1/auth/signup');
    expect(JSON.parse(calls[0]?.body ?? '{}')).toEqual({
      email: 'new@x.co',
      password: 'a long password',
      invitationToken: 'tok',
    });
  });
});
