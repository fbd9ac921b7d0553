import { after, before, describe, test } from 'node:test';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    before(async () => {
      h = await startHarness(target.name, 'aw_list_error');
      user = await signupUser(h.app);
    });
    after(() => h.close());

    test('limit 0, 101, "abc", -1 and 2.5 are 400 naming limit', async () => {
      for (const limit of ['0', '101', 'abc', '-1', '2.5']) {
        expectValidation(await user.api.get(`/api/v1/agent-wallets?limit=${limit}`), 'limit');
      }
    });

    test('page 0, -3 and "x" are 400 naming page', async () => {
      for (const page of ['0', '-3', 'x']) {
        expectValidation(await user.api.get(`/api/v1/agent-wallets?page=${page}`), 'page');
      }
    });

    test('an unknown query parameter is 400 naming it', async () => {
      expectValidation(await user.api.get('/api/v1/agent-wallets?userId=usr_x'), 'userId');
    });

    test('without a token: 401', async () => {
      expectError(await call(h.app, 'GET', '/api/v1/agent-wallets'), 401, 'UNAUTHORIZED');
    });
  });
}
