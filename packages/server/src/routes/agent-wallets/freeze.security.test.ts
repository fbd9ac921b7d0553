import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertStoreUnchanged,
  expectExpiredTokenRejected,
  expectRejectsBadCredentials,
  storeState,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/freeze security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_freeze_security');
    });
    after(() => h.close());

    test("freezing another user's wallet is 404 NOT_FOUND and freezes nothing", async () => {
      const owner = await fundedUser(h.app, '10');
      const intruder = await signupUser(h.app);
      const state = await storeState(h);
      const reply = await intruder.api.post(`/api/v1/agent-wallets/${owner.walletId}/freeze`, {});
      expectError(reply, 404, 'NOT_FOUND');
      const missing = await intruder.api.post('/api/v1/agent-wallets/wal_missing/freeze', {});
      assert.deepEqual(reply.body, missing.body);
      await assertStoreUnchanged(h, state, "freezing another user's wallet");
      assert.equal(
        (await owner.user.api.get(`/api/v1/agent-wallets/${owner.walletId}`)).body.data.frozen,
        false,
      );
    });

    test('every bad credential is 401 and freezes nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      await expectRejectsBadCredentials(
        h,
        user,
        await signupUser(h.app),
        'POST',
        `/api/v1/agent-wallets/${walletId}/freeze`,
        {},
      );
    });

    test('an expired token is 401 and freezes nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      await expectExpiredTokenRejected(h, user, 'POST', `/api/v1/agent-wallets/${walletId}/freeze`, {});
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.frozen, false);
    });
  });
}
