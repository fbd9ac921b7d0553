import { after, before, describe, test } from 'node:test';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet/deposits errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    before(async () => {
      h = await startHarness(target.name, 'deposits_error');
      user = await signupUser(h.app);
    });
    after(() => h.close());

    test('bad limits are 400 naming limit', async () => {
      for (const limit of ['0', '101', 'abc', '-1', '1.5', '01', '1e1', '', '99999999999']) {
        expectValidation(
          await user.api.get(`/api/v1/wallet/deposits?limit=${encodeURIComponent(limit)}`),
          'limit',
        );
      }
    });

    test('bad pages are 400 naming page', async () => {
      for (const page of ['0', '-1', 'abc', '1.0', '']) {
        expectValidation(
          await user.api.get(`/api/v1/wallet/deposits?page=${encodeURIComponent(page)}`),
          'page',
        );
      }
    });

    test('a repeated or unknown query parameter is 400', async () => {
      expectValidation(await user.api.get('/api/v1/wallet/deposits?limit=5&limit=6'), 'limit');
      expectValidation(await user.api.get('/api/v1/wallet/deposits?sort=asc'), 'sort');
    });

    test('without a token: 401', async () => {
      expectError(await call(h.app, 'GET', '/api/v1/wallet/deposits'), 401, 'UNAUTHORIZED');
    });
  });
}
