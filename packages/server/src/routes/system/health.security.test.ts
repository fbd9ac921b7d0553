import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { assertNoSecrets } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError } from '../../../test/support/http.ts';
import { probeService, REDIS_URL, uniqueName } from '../../../test/support/services.ts';

for (const target of await storeTargets()) {
  describe(`GET /health security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'health_security');
    });
    after(() => h.close());

    test('tells nothing about where the data lives or how to reach it', async () => {
      const reply = await call(h.app, 'GET', '/api/v1/health');
      assertNoSecrets(h, reply);
      assert.ok(!reply.raw.includes(h.dataDir), 'health shows the data directory');
      assert.ok(
        !/postgres:\/\/|127\.0\.0\.1|5432|\.sqlite/.test(reply.raw),
        `health shows a location: ${reply.raw}`,
      );
      if (h.postgresSchema !== undefined) assert.ok(!reply.raw.includes(h.postgresSchema));
    });

    test('only GET exists: other methods are 405 envelopes', async () => {
      expectError(await call(h.app, 'POST', '/api/v1/health', {}), 405, 'METHOD_NOT_ALLOWED');
      expectError(await call(h.app, 'DELETE', '/api/v1/health'), 405, 'METHOD_NOT_ALLOWED');
    });
  });
}

// Issue 10, defect 10: health said "ok" while the Redis quarantine (after a Redis data loss) refused every
// limited route with 503. It must say "degraded" and why.
const redisProbe = await probeService('Redis', REDIS_URL);
describe('GET /health during a Redis quarantine', {
  skip: redisProbe.available ? false : redisProbe.skip,
}, () => {
  let h: Harness;
  let redis: Redis;
  const prefix = `${uniqueName('health_quarantine')}:`;
  before(async () => {
    h = await startHarness('sqlite', 'health_quarantine', { env: { REDIS_URL, REDIS_PREFIX: prefix } });
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    await redis.del(`${prefix}quarantine`);
    redis.disconnect();
    await h.close();
  });

  test('says degraded with the reason while limited routes answer 503, and ok once it ends', async () => {
    const ok = await call(h.app, 'GET', '/api/v1/health');
    assert.equal(ok.body.data.status, 'ok', ok.raw);
    const [seconds, micros] = (await redis.time()).map(Number);
    const untilUs = (seconds ?? 0) * 1_000_000 + (micros ?? 0) + 30_000_000;
    await redis.set(`${prefix}quarantine`, String(untilUs), 'PX', 30_000);
    const refused = await call(h.app, 'POST', '/api/v1/auth/login', { email: 'a@b.test', password: 'x' });
    expectError(refused, 503, 'SERVICE_UNAVAILABLE');
    const degraded = await call(h.app, 'GET', '/api/v1/health');
    assert.equal(degraded.status, 200);
    assert.equal(degraded.body.data.status, 'degraded');
    assert.equal(degraded.body.data.redis, 'up');
    assert.match(
      degraded.body.data.reasons.join(' '),
      /Redis lost its rate-limit data: limited routes answer 503 for (2\d|30) s more/,
    );
    await redis.del(`${prefix}quarantine`);
    const after = await call(h.app, 'GET', '/api/v1/health');
    assert.equal(after.body.data.status, 'ok', after.raw);
    assert.equal(after.body.data.reasons, undefined);
  });
});
