import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_get_security');
    });
    after(() => h.close());

    test("another user's wallet is 404 NOT_FOUND, the same answer as a wallet that does not exist", async () => {
      const owner = await fundedUser(h.app, '10');
      const intruder = await signupUser(h.app);
      const theirs = await intruder.api.get(`/api/v1/agent-wallets/${owner.walletId}`);
      const missing = await intruder.api.get('/api/v1/agent-wallets/wal_0000000000000000000000000');
      expectError(theirs, 404, 'NOT_FOUND');
      expectError(missing, 404, 'NOT_FOUND');
      assert.deepEqual(theirs.body, missing.body);
      assert.ok(!theirs.raw.includes(owner.wallet.address));
      assert.ok(!theirs.raw.includes(owner.walletId));
    });

    test('every bad credential is 401', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      await expectRejectsBadCredentials(
        h,
        user,
        await signupUser(h.app),
        'GET',
        `/api/v1/agent-wallets/${walletId}`,
      );
    });

    test('an expired token is 401', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      await expectExpiredTokenRejected(h, user, 'GET', `/api/v1/agent-wallets/${walletId}`);
    });

    test('path tricks do not reach another wallet', async () => {
      const owner = await fundedUser(h.app, '1');
      const intruder = await fundedUser(h.app, '1');
      for (const path of [
        `/api/v1/agent-wallets/${intruder.walletId}/../${owner.walletId}`,
        `/api/v1/agent-wallets/${owner.walletId}%00`,
        `/api/v1/agent-wallets/${encodeURIComponent(`${owner.walletId}' or '1'='1`)}`,
      ]) {
        const reply = await intruder.user.api.get(path);
        assert.ok(reply.status === 404 || reply.status === 400, `${path}: ${reply.status} ${reply.raw}`);
        assert.ok(!reply.raw.includes(owner.wallet.address), `${path} leaked the wallet`);
      }
    });
  });
}
