import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertNoSecrets } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError } from '../../../test/support/http.ts';

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

    test('only GET exists: other methods are 404 envelopes', async () => {
      expectError(await call(h.app, 'POST', '/api/v1/health', {}), 404, 'NOT_FOUND');
      expectError(await call(h.app, 'DELETE', '/api/v1/health'), 404, 'NOT_FOUND');
    });
  });
}
