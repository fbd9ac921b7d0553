import { after, before, describe, test } from 'node:test';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id/transactions errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let url: string;
    before(async () => {
      h = await startHarness(target.name, 'tx_list_error');
      const funded = await fundedUser(h.app, '10');
      user = funded.user;
      url = `/api/v1/agent-wallets/${funded.walletId}/transactions`;
    });
    after(() => h.close());

    test('limit 0, 101, "abc" are 400 naming limit; page 0 is 400 naming page', async () => {
      for (const limit of ['0', '101', 'abc'])
        expectValidation(await user.api.get(`${url}?limit=${limit}`), 'limit');
      for (const page of ['0', '-1', 'two'])
        expectValidation(await user.api.get(`${url}?page=${page}`), 'page');
    });

    test('an unknown status is 400 naming status', async () => {
      for (const status of ['done', 'COMPLETED', '']) {
        expectValidation(await user.api.get(`${url}?status=${status}`), 'status');
      }
    });

    test('an unknown query parameter is 400 naming it', async () => {
      expectValidation(await user.api.get(`${url}?walletId=wal_x`), 'walletId');
    });

    test('an unknown wallet and the master wallet are 404 NOT_FOUND', async () => {
      expectError(await user.api.get('/api/v1/agent-wallets/wal_nope/transactions'), 404, 'NOT_FOUND');
      const master = await user.api.get('/api/v1/wallet');
      expectError(
        await user.api.get(`/api/v1/agent-wallets/${master.body.data.id}/transactions`),
        404,
        'NOT_FOUND',
      );
    });
  });
}
