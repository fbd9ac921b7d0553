import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_get_error');
    });
    after(() => h.close());

    test('an unknown id is 404 NOT_FOUND', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      for (const id of ['wal_doesnotexist', `${walletId}x`, walletId.toUpperCase(), '0', 'null']) {
        expectError(await user.api.get(`/api/v1/agent-wallets/${id}`), 404, 'NOT_FOUND');
      }
    });

    test("the user's own master wallet id is not an agent wallet: 404", async () => {
      const { user } = await fundedUser(h.app, '1');
      const master = await user.api.get('/api/v1/wallet');
      expectError(await user.api.get(`/api/v1/agent-wallets/${master.body.data.id}`), 404, 'NOT_FOUND');
    });

    test('an id over 64 characters is 400 naming walletId', async () => {
      const { user } = await fundedUser(h.app, '1');
      expectValidation(await user.api.get(`/api/v1/agent-wallets/${'w'.repeat(65)}`), 'walletId');
    });

    test('without a token: 401 (before any lookup)', async () => {
      const { walletId } = await fundedUser(h.app, '1');
      const reply = await call(h.app, 'GET', `/api/v1/agent-wallets/${walletId}`);
      expectError(reply, 401, 'UNAUTHORIZED');
      assert.ok(!reply.raw.includes(walletId));
    });
  });
}
