// Two service processes sharing one PostgreSQL schema and one Redis, as a team runs it when it grows:
// the rate limit holds across them, revocation and logout reach both, and a Redis outage or restart never
// lets requests through unlimited.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { OUTSIDE_ADDRESS } from './support/agent.helpers.ts';
import {
  freePort,
  hasRedisServerBinary,
  type ServiceProcess,
  startRedisServer,
  startServiceProcess,
  stopRedisServer,
} from './support/processes.ts';
import { type HttpReply, request } from './support/service-http.ts';
import { POSTGRES_URL, probeService, uniqueName } from './support/services.ts';

const pg = await probeService('PostgreSQL', POSTGRES_URL);
const skip = !pg.available
  ? pg.skip
  : hasRedisServerBinary
    ? false
    : 'redis-server binary not installed; skipping';

describe('two instances sharing PostgreSQL and Redis', { skip }, () => {
  const schema = uniqueName('multi');
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let token: string;
  let walletId: string;

  before(async () => {
    redisPort = await freePort();
    redis = await startRedisServer(redisPort);
    const env = {
      DATABASE_URL: POSTGRES_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REDIS_PREFIX: `${schema}:`,
      JWT_SECRET: 'a shared secret of at least thirty-two characters!',
      // Signups come from one IP in this test; every other limit keeps the seed's default.
      RATE_LIMITS: '{"signup":100,"login":100}',
    };
    a = await startServiceProcess(env);
    b = await startServiceProcess(env);
    const signup = await request(a.url, 'POST', '/api/v1/auth/signup', undefined, {
      email: 'multi@example.test',
      password: 'a long enough password',
    });
    token = signup.body.data.token;
    await request(a.url, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '100' });
    walletId = (await request(b.url, 'POST', '/api/v1/agent-wallets', token, { label: 'shared' })).body.data
      .id;
    await request(a.url, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '50' });
  });

  after(async () => {
    await a?.stop();
    await b?.stop();
    await stopRedisServer(redis);
  });

  async function newKey(scopes?: string[]) {
    const created = await request(a.url, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, {
      label: 'k',
      ...(scopes === undefined ? {} : { scopes }),
    });
    return { key: created.body.data.key as string, id: created.body.data.id as string };
  }

  test('the combined accepted count per bucket never exceeds N (check_balance: 60)', async () => {
    const { key } = await newKey();
    const replies = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        request(i % 2 === 0 ? a.url : b.url, 'POST', '/mcp/v1/tools/check_balance', key, {}),
      ),
    );
    const accepted = replies.filter((r) => r.status === 200);
    assert.equal(accepted.length, 60);
    const refused = replies.filter((r) => r.status === 429);
    assert.equal(refused.length, 90);
    assert.ok(refused.every((r) => Number(r.headers.get('retry-after')) >= 1));
  });

  test('the count is shared: what one instance admitted, the other refuses (check_balance: 60)', async () => {
    // Deterministic where the race above is not: which instance wins a burst depends on scheduling.
    const { key } = await newKey();
    const call = (url: string) => request(url, 'POST', '/mcp/v1/tools/check_balance', key, {});
    for (let i = 0; i < 40; i += 1) assert.equal((await call(a.url)).status, 200);
    const onB = [];
    for (let i = 0; i < 40; i += 1) onB.push((await call(b.url)).status);
    assert.deepEqual(onB, [...Array(20).fill(200), ...Array(20).fill(429)]);
  });

  test('a key revoked on one instance is refused by the other at the very next request', async () => {
    const { key, id } = await newKey();
    assert.equal((await request(b.url, 'POST', '/mcp/v1/tools/get_tx_history', key, {})).status, 200); // cached on b
    const revoked = await request(
      a.url,
      'POST',
      `/api/v1/agent-wallets/${walletId}/keys/${id}/revoke`,
      token,
    );
    assert.equal(revoked.status, 200);
    const refused = await request(b.url, 'POST', '/mcp/v1/tools/get_tx_history', key, {});
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'MCP_AUTH_INVALID');
  });

  test('a JWT logged out on one instance is dead on the other', async () => {
    const login = await request(b.url, 'POST', '/api/v1/auth/login', undefined, {
      email: 'multi@example.test',
      password: 'a long enough password',
    });
    const session = login.body.data.token;
    assert.equal((await request(a.url, 'GET', '/api/v1/auth/me', session)).status, 200);
    assert.equal((await request(b.url, 'POST', '/api/v1/auth/logout', session)).status, 200);
    assert.equal((await request(a.url, 'GET', '/api/v1/auth/me', session)).body.error.code, 'UNAUTHORIZED');
  });

  test('a payment through one instance is seen by the other (one ledger)', async () => {
    const { key } = await newKey();
    const paid = await request(a.url, 'POST', '/mcp/v1/tools/send_payment', key, {
      params: { toAddress: OUTSIDE_ADDRESS, amount: '1.25' },
    });
    assert.equal(paid.body.data.status, 'completed');
    const balance = await request(b.url, 'POST', '/mcp/v1/tools/check_balance', key, {});
    assert.equal(balance.body.data.balance, '48.750000');
  });

  test('a Redis outage fails closed (503), health reports it, and the restart lets no burst through', async () => {
    const { key } = await newKey();
    await stopRedisServer(redis);
    redis = undefined;
    for (const base of [a.url, b.url]) {
      const down = await request(base, 'POST', '/mcp/v1/tools/check_balance', key, {});
      assert.equal(down.status, 503);
      assert.equal(down.body.error.code, 'SERVICE_UNAVAILABLE');
      const rest = await request(base, 'GET', '/api/v1/wallet', token);
      assert.equal(rest.status, 503, 'REST routes fail closed too');
      const health = await request(base, 'GET', '/api/v1/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.data.redis, 'down');
      assert.equal(health.body.data.status, 'degraded');
    }
    redis = await startRedisServer(redisPort);
    const deadline = Date.now() + 5_000;
    let health: HttpReply | undefined;
    while (Date.now() < deadline) {
      health = await request(a.url, 'GET', '/api/v1/health');
      if (health.body.data.redis === 'up') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(health?.body.data.redis, 'up', 'recovered by itself');
    // The restarted Redis forgot every window: instead of admitting a fresh burst, both instances hold
    // limited routes back for one window.
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(i % 2 === 0 ? a.url : b.url, 'POST', '/mcp/v1/tools/check_balance', key, {}),
      ),
    );
    assert.ok(
      replies.every((r) => r.status === 503),
      replies.map((r) => r.status).join(','),
    );
    const retryAfter = Number(replies[0]!.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  });
});
