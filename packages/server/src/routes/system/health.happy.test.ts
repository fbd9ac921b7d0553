import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';
import { VERSION } from '../../version.ts';

for (const target of await storeTargets()) {
  describe(`GET /health happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'health_happy');
    });
    after(() => h.close());

    test('answers without auth: {status: "ok", version, database: "up", storage, rail: "sandbox"}', async () => {
      const reply = await call(h.app, 'GET', '/api/v1/health');
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body, ['success', 'data']);
      assertKeys(reply.body.data, ['status', 'version', 'database', 'storage', 'rail']);
      assert.deepEqual(reply.body.data, {
        status: 'ok',
        version: VERSION,
        database: 'up',
        storage: target.name,
        rail: 'sandbox',
      });
      assert.match(String(reply.headers['content-type']), /^application\/json/);
    });

    test('without REDIS_URL there is no redis field', async () => {
      const reply = await call(h.app, 'GET', '/api/v1/health');
      assert.equal('redis' in reply.body.data, false);
    });

    test('a bad token does not matter on a public route', async () => {
      const reply = await call(h.app, 'GET', '/api/v1/health', undefined, { token: 'garbage' });
      assert.equal(reply.status, 200, reply.raw);
    });
  });
}
