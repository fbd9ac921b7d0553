import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStoreUnchanged, expectValidation, storeState } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/unfreeze errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let walletId: string;
    before(async () => {
      h = await startHarness(target.name, 'aw_unfreeze_error');
      ({ user, walletId } = await fundedUser(h.app, '10'));
      await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
    });
    after(() => h.close());

    test('an unknown wallet is 404 NOT_FOUND', async () => {
      const state = await storeState(h);
      expectError(await user.api.post('/api/v1/agent-wallets/wal_nope/unfreeze', {}), 404, 'NOT_FOUND');
      await assertStoreUnchanged(h, state, 'unfreezing an unknown wallet');
    });

    test('a body with a field is 400 naming it, and the wallet stays frozen', async () => {
      const state = await storeState(h);
      expectValidation(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`, { force: true }),
        'force',
        /unknown field/,
      );
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`, '{"x"'),
        400,
        'VALIDATION_ERROR',
      );
      await assertStoreUnchanged(h, state, 'a refused unfreeze');
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.frozen, true);
    });
  });
}
