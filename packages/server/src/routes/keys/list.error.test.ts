import { after, before, describe, test } from 'node:test';
import { keysUrl } from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/keys error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_list_error');
    });
    after(() => h.close());

    test('limit outside 1-100, a bad page, or an unknown query parameter is a 400 naming it', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=-1', 'limit'],
        ['limit=1.5', 'limit'],
        ['page=0', 'page'],
        ['page=x', 'page'],
        ['status=active', 'status'],
      ] as const) {
        expectValidation(await user.api.get(`${keysUrl(walletId)}?${query}`), field);
      }
    });

    test('an unknown wallet or the master wallet is a 404 NOT_FOUND', async () => {
      const { user } = await fundedUser(h.app, '10');
      const master = await user.api.get('/api/v1/wallet');
      expectError(await user.api.get(keysUrl('wal_nope')), 404, 'NOT_FOUND');
      expectError(await user.api.get(keysUrl(master.body.data.id)), 404, 'NOT_FOUND');
    });
  });
}
