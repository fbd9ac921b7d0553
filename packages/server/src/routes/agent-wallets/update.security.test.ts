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
  describe(`PATCH /agent-wallets/:id security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_update_security');
    });
    after(() => h.close());

    test("renaming another user's wallet is 404 NOT_FOUND and changes nothing", async () => {
      const owner = await fundedUser(h.app, '10');
      const intruder = await signupUser(h.app);
      const state = await storeState(h);
      const reply = await intruder.api.patch(`/api/v1/agent-wallets/${owner.walletId}`, { label: 'pwned' });
      expectError(reply, 404, 'NOT_FOUND');
      const missing = await intruder.api.patch('/api/v1/agent-wallets/wal_missing', { label: 'pwned' });
      assert.deepEqual(reply.body, missing.body);
      await assertStoreUnchanged(h, state, "a rename of another user's wallet");
      assert.equal(
        (await owner.user.api.get(`/api/v1/agent-wallets/${owner.walletId}`)).body.data.label,
        'agent one',
      );
    });

    test('every bad credential is 401 and renames nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      await expectRejectsBadCredentials(
        h,
        user,
        await signupUser(h.app),
        'PATCH',
        `/api/v1/agent-wallets/${walletId}`,
        {
          label: 'pwned',
        },
      );
    });

    test('an expired token is 401 and renames nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      await expectExpiredTokenRejected(h, user, 'PATCH', `/api/v1/agent-wallets/${walletId}`, {
        label: 'pwned',
      });
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.label, 'agent one');
    });
  });
}
