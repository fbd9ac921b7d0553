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
  describe(`POST /agent-wallets/:id/unfreeze security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_unfreeze_security');
    });
    after(() => h.close());

    async function frozenWallet() {
      const funded = await fundedUser(h.app, '10');
      const reply = await funded.user.api.post(`/api/v1/agent-wallets/${funded.walletId}/freeze`, {});
      assert.equal(reply.status, 200, reply.raw);
      return funded;
    }

    test("unfreezing another user's wallet is 404 NOT_FOUND and the wallet stays frozen", async () => {
      const owner = await frozenWallet();
      const intruder = await signupUser(h.app);
      const state = await storeState(h);
      expectError(
        await intruder.api.post(`/api/v1/agent-wallets/${owner.walletId}/unfreeze`, {}),
        404,
        'NOT_FOUND',
      );
      await assertStoreUnchanged(h, state, "unfreezing another user's wallet");
      assert.equal(
        (await owner.user.api.get(`/api/v1/agent-wallets/${owner.walletId}`)).body.data.frozen,
        true,
      );
    });

    test('every bad credential is 401 and unfreezes nothing', async () => {
      const { user, walletId } = await frozenWallet();
      await expectRejectsBadCredentials(
        h,
        user,
        await signupUser(h.app),
        'POST',
        `/api/v1/agent-wallets/${walletId}/unfreeze`,
        {},
      );
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.frozen, true);
    });

    test('an expired token is 401 and unfreezes nothing', async () => {
      const { user, walletId } = await frozenWallet();
      await expectExpiredTokenRejected(h, user, 'POST', `/api/v1/agent-wallets/${walletId}/unfreeze`, {});
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.frozen, true);
    });
  });
}
