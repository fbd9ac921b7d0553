// Seed section 8 / contract section 5 at the HTTP level, on the in-memory store with an injected clock:
// every default limit, the exact 429, Retry-After that works, independent buckets, and the sliding window.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKey, fund, OUTSIDE_ADDRESS } from './support/agent.helpers.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call, fundedUser, type Reply, signupUser } from './support/http.ts';

const TOOL_LIMITS = { check_balance: 60, send_payment: 10, get_tx_history: 30, request_approval: 5 };
const TOOL_PARAMS: Record<string, Record<string, unknown>> = {
  check_balance: {},
  get_tx_history: {},
  send_payment: { toAddress: OUTSIDE_ADDRESS, amount: '0.000001' },
  request_approval: { toAddress: OUTSIDE_ADDRESS, amount: '0.000001' },
};

function assertLimited(reply: Reply, limit: number, retryAfterSeconds: number) {
  assert.equal(reply.status, 429, reply.raw);
  assert.equal(reply.body.success, false);
  assert.equal(reply.body.error.code, 'RATE_LIMITED');
  assert.match(reply.body.error.message, new RegExp(`${limit} requests per minute`));
  assert.equal(reply.headers['retry-after'], String(retryAfterSeconds));
  assert.equal(reply.headers['ratelimit-limit'], String(limit));
  assert.equal(reply.headers['ratelimit-remaining'], '0');
  assert.equal(reply.headers['ratelimit-reset'], String(retryAfterSeconds));
}

/** N requests spread over 30 s are accepted, the N+1th is refused; waiting Retry-After lets one through. */
async function exerciseLimit(h: Harness, limit: number, send: () => Promise<Reply>) {
  const stepMs = Math.floor(30_000 / limit);
  const startMs = h.clock.nowMs();
  for (let i = 0; i < limit; i += 1) {
    const reply = await send();
    assert.ok(reply.status < 400, `request ${i + 1} of ${limit}: ${reply.raw}`);
    assert.equal(reply.headers['ratelimit-limit'], String(limit));
    assert.equal(reply.headers['ratelimit-remaining'], String(limit - i - 1));
    assert.equal(
      reply.headers['ratelimit-reset'],
      String(Math.ceil((startMs + 60_000 - h.clock.nowMs()) / 1000)),
    );
    h.clock.advanceMs(stepMs);
  }
  const expectedRetry = Math.ceil((startMs + 60_000 - h.clock.nowMs()) / 1000);
  const refused = await send();
  assertLimited(refused, limit, expectedRetry);
  h.clock.advanceSeconds(expectedRetry - 1);
  assert.equal((await send()).status, 429, 'one second early is still refused');
  h.clock.advanceSeconds(1);
  const accepted = await send();
  assert.ok(accepted.status < 400, `after Retry-After: ${accepted.raw}`);
  h.clock.advanceSeconds(120); // leave the next test an empty window
}

describe('rate limits: the seed defaults (memory store)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'limits', { env: { RATE_LIMITS: '' } });
  });
  after(() => h.close());

  test('defaults are exactly the seed numbers', () => {
    assert.deepEqual(h.config.rateLimitsPerMinute, {
      ...TOOL_LIMITS,
      login: 5,
      signup: 3,
      wallet: 30,
      agent_wallets: 30,
      health: 600,
      tool_unauthenticated: 60,
      default: 60,
      login_account: 10,
      mfa_code: 10,
      check_payment: 60,
      x402_fetch: 10,
      x402_sign: 10,
      paid_fetch: 10,
      mpp_sign: 10,
      mcp_transport: 1200,
    });
  });

  test('signup: 3 per minute per IP, and a refused signup creates no user', async () => {
    let n = 0;
    const send = () =>
      call(
        h.app,
        'POST',
        '/api/v1/auth/signup',
        { email: `s${n++}@limits.test`, password: 'a long enough password' },
        { ip: '10.0.0.1' },
      );
    await exerciseLimit(h, 3, send);
    for (let i = 0; i < 3; i += 1) await send();
    const refused = await call(
      h.app,
      'POST',
      '/api/v1/auth/signup',
      { email: 'refused@limits.test', password: 'a long enough password' },
      { ip: '10.0.0.1' },
    );
    assert.equal(refused.status, 429);
    const login = await call(
      h.app,
      'POST',
      '/api/v1/auth/login',
      { email: 'refused@limits.test', password: 'a long enough password' },
      { ip: '10.0.0.9' },
    );
    assert.equal(login.body.error.code, 'INVALID_CREDENTIALS', 'the refused signup wrote nothing');
    h.clock.advanceSeconds(120);
  });

  test('signup probes for taken emails count too: the 4th probe in a minute is a 429, whatever it names', async () => {
    // Bounds account enumeration through 409 EMAIL_TAKEN (SECURITY.md): every signup counts, answered or not.
    const ip = '10.0.0.2';
    const taken = await signupUser(h.app);
    h.clock.advanceSeconds(120);
    const probe = (email: string) =>
      call(h.app, 'POST', '/api/v1/auth/signup', { email, password: 'a long enough password' }, { ip });
    for (let i = 0; i < 3; i += 1) assert.equal((await probe(taken.email)).status, 409);
    for (const email of [taken.email, 'free@limits.test']) {
      const refused = await probe(email);
      assert.equal(refused.status, 429, refused.raw);
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
    }
    h.clock.advanceSeconds(120);
  });

  test('login: 5 per minute per IP; another IP has its own bucket', async () => {
    const user = await signupUser(h.app);
    const send = () =>
      call(
        h.app,
        'POST',
        '/api/v1/auth/login',
        { email: user.email, password: user.password },
        { ip: '10.0.0.2' },
      );
    await exerciseLimit(h, 5, send);
    for (let i = 0; i < 5; i += 1) await send();
    assert.equal((await send()).status, 429);
    const other = await call(
      h.app,
      'POST',
      '/api/v1/auth/login',
      { email: user.email, password: user.password },
      { ip: '10.0.0.3' },
    );
    assert.equal(other.status, 200);
    h.clock.advanceSeconds(120);
  });

  test('GET /wallet/*: 30 per minute per user, shared by every path under /wallet', async () => {
    const alice = await signupUser(h.app);
    const paths = ['/api/v1/wallet', '/api/v1/wallet/balance', '/api/v1/wallet/deposits'];
    let i = 0;
    await exerciseLimit(h, 30, () => alice.api.get(paths[i++ % paths.length]!));
    const bob = await signupUser(h.app);
    for (let j = 0; j < 30; j += 1) await alice.api.get('/api/v1/wallet');
    assert.equal((await alice.api.get('/api/v1/wallet/balance')).status, 429);
    assert.equal((await bob.api.get('/api/v1/wallet')).status, 200, 'another user, another bucket');
    h.clock.advanceSeconds(120);
  });

  test('*/agent-wallets/*: 30 per minute per user across every method and path', async () => {
    const { user, walletId } = await fundedUser(h.app, '100');
    h.clock.advanceSeconds(120);
    const sends = [
      () => user.api.get('/api/v1/agent-wallets'),
      () => user.api.get(`/api/v1/agent-wallets/${walletId}`),
      () => user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '0.000001' }),
      () => user.api.get(`/api/v1/agent-wallets/${walletId}/keys`),
      () => user.api.patch(`/api/v1/agent-wallets/${walletId}`, { label: 'renamed' }),
    ];
    let i = 0;
    await exerciseLimit(h, 30, () => sends[i++ % sends.length]!());
  });

  test('every other endpoint: 60 per minute per user, each endpoint its own bucket', async () => {
    const user = await signupUser(h.app);
    await exerciseLimit(h, 60, () => user.api.get('/api/v1/auth/me'));
    for (let i = 0; i < 60; i += 1) await user.api.get('/api/v1/auth/me');
    assert.equal((await user.api.get('/api/v1/auth/me')).status, 429);
    assert.equal((await user.api.get('/api/v1/wallet')).status, 200, 'the wallet bucket is separate');
    h.clock.advanceSeconds(120);
  });

  test('health: 600 per minute per IP', async () => {
    const send = () => call(h.app, 'GET', '/api/v1/health', undefined, { ip: '10.0.0.4' });
    for (let i = 0; i < 600; i += 1) assert.equal((await send()).status, 200);
    const refused = await send();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['ratelimit-limit'], '600');
    h.clock.advanceSeconds(120);
  });

  for (const [toolName, limit] of Object.entries(TOOL_LIMITS)) {
    test(`${toolName}: ${limit} per minute per key; other keys and tools are independent`, async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      await fund(user, walletId, '50');
      const key = await createKey(user, walletId);
      const otherKey = await createKey(user, walletId, { label: 'other' });
      h.clock.advanceSeconds(120);
      const send = () =>
        call(h.app, 'POST', `/mcp/v1/tools/${toolName}`, { params: TOOL_PARAMS[toolName] }, { token: key });
      await exerciseLimit(h, limit, send);
      for (let i = 0; i < limit; i += 1) await send();
      const refused = await send();
      assert.equal(refused.status, 429);
      assert.equal(refused.body.tool, toolName);
      const sameKeyOtherTool = toolName === 'check_balance' ? 'get_tx_history' : 'check_balance';
      assert.equal(
        (await call(h.app, 'POST', `/mcp/v1/tools/${sameKeyOtherTool}`, {}, { token: key })).status,
        200,
      );
      assert.equal(
        (
          await call(
            h.app,
            'POST',
            `/mcp/v1/tools/${toolName}`,
            { params: TOOL_PARAMS[toolName] },
            { token: otherKey },
          )
        ).status,
        200,
      );
      h.clock.advanceSeconds(120);
    });
  }

  test('tool calls without a valid key: 60 per minute per IP, so keys cannot be brute-forced', async () => {
    const guess = () =>
      call(
        h.app,
        'POST',
        '/mcp/v1/tools/check_balance',
        {},
        { token: `svc_live_${'x'.repeat(43)}`, ip: '10.0.0.5' },
      );
    for (let i = 0; i < 60; i += 1) assert.equal((await guess()).body.error.code, 'MCP_AUTH_INVALID');
    const refused = await guess();
    assert.equal(refused.status, 429);
    const missing = await call(h.app, 'POST', '/mcp/v1/tools/check_balance', {}, { ip: '10.0.0.5' });
    assert.equal(missing.status, 429, 'no key at all shares the per-IP bucket');
    h.clock.advanceSeconds(120);
  });

  test('the window slides: a burst at second 59 still counts at second 61', async () => {
    const user = await signupUser(h.app);
    h.clock.advanceSeconds(120);
    const startMs = h.clock.nowMs();
    h.clock.setMs(startMs + 59_000);
    for (let i = 0; i < 30; i += 1) assert.equal((await user.api.get('/api/v1/wallet')).status, 200);
    h.clock.setMs(startMs + 61_000); // a fixed per-minute counter would have reset here
    const refused = await user.api.get('/api/v1/wallet');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '58');
    h.clock.setMs(startMs + 119_000);
    assert.equal(
      (await user.api.get('/api/v1/wallet')).status,
      200,
      'exactly when the burst leaves the window',
    );
  });

  test('requests refused with 429 are not counted', async () => {
    const user = await signupUser(h.app);
    h.clock.advanceSeconds(120);
    for (let i = 0; i < 30; i += 1) await user.api.get('/api/v1/wallet');
    h.clock.advanceSeconds(30);
    for (let i = 0; i < 100; i += 1) assert.equal((await user.api.get('/api/v1/wallet')).status, 429);
    h.clock.advanceSeconds(30);
    const next = await user.api.get('/api/v1/wallet');
    assert.equal(next.status, 200, 'hammering a full bucket does not push the retry time further out');
    assert.equal(next.headers['ratelimit-remaining'], '29');
  });

  test('requests with a bad token count per IP in the route bucket', async () => {
    const send = () =>
      call(h.app, 'GET', '/api/v1/wallet', undefined, { token: 'not-a-jwt', ip: '10.0.0.6' });
    for (let i = 0; i < 30; i += 1) assert.equal((await send()).status, 401);
    assert.equal((await send()).status, 429);
    h.clock.advanceSeconds(120);
  });
});

describe('rate limits: configuration and client IPs', () => {
  test('RATE_LIMITS overrides a bucket and refuses unknown names at start', async () => {
    const h = await startHarness('sqlite', 'limits_cfg', { env: { RATE_LIMITS: '{"login":2}' } });
    try {
      assert.equal(h.config.rateLimitsPerMinute.login, 2);
      assert.equal(h.config.rateLimitsPerMinute.signup, 3);
    } finally {
      await h.close();
    }
    await assert.rejects(
      startHarness('sqlite', 'limits_bad', { env: { RATE_LIMITS: '{"logins":2}' } }),
      /unknown limit name/,
    );
    await assert.rejects(
      startHarness('sqlite', 'limits_bad', { env: { RATE_LIMITS: '{"login":0}' } }),
      /between 1/,
    );
  });

  // Issue 10, defect 4: TRUST_PROXY=true believed the leftmost, client-written X-Forwarded-For entry.
  test('X-Forwarded-For: the client is the nearest untrusted address, never the leftmost one', async () => {
    // [settings, the X-Forwarded-For entry that names the client (from the right)]
    const cases: Array<[Record<string, string>, number | null]> = [
      [{}, null],
      [{ TRUST_PROXY: 'true' }, 1],
      [{ TRUSTED_PROXIES: '1' }, 1],
      [{ TRUSTED_PROXIES: '2' }, 2],
      [{ TRUSTED_PROXIES: '127.0.0.1/32, 10.0.0.0/8' }, 2],
    ];
    for (const [env, fromRight] of cases) {
      const h = await startHarness('sqlite', 'limits_proxy', {
        env: { RATE_LIMITS: '{"health":2}', ...env },
      });
      try {
        const send = (entries: string[]) =>
          call(h.app, 'GET', '/api/v1/health', undefined, {
            headers: { 'x-forwarded-for': entries.join(', ') },
            ip: '127.0.0.1',
          });
        // The client forges a different leftmost entry each time: it never buys a fresh bucket.
        const forged = [];
        for (const fake of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) {
          forged.push((await send([fake, '203.0.113.7', '10.1.2.3'])).status);
        }
        assert.deepEqual(forged, [200, 200, 429], `forged entries with ${JSON.stringify(env)}`);
        if (fromRight === null) continue;
        // Different real clients behind the trusted proxies count apart.
        const real = [];
        for (const client of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
          const entries = fromRight === 1 ? ['6.6.6.6', client] : ['6.6.6.6', client, '10.9.9.9'];
          real.push((await send(entries)).status);
        }
        assert.deepEqual(real, [200, 200, 200], `real clients with ${JSON.stringify(env)}`);
      } finally {
        await h.close();
      }
    }
  });
});
