import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id/transactions security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_list_security');
    });
    after(() => h.close());

    test("another user's wallet is 404 NOT_FOUND, the same answer as a missing wallet", async () => {
      const owner = await fundedUser(h.app, '10');
      const fund = await owner.user.api.post(`/api/v1/agent-wallets/${owner.walletId}/fund`, { amount: '3' });
      const intruder = await fundedUser(h.app, '10');
      const theirs = await intruder.user.api.get(`/api/v1/agent-wallets/${owner.walletId}/transactions`);
      expectError(theirs, 404, 'NOT_FOUND');
      const missing = await intruder.user.api.get('/api/v1/agent-wallets/wal_missing/transactions');
      assert.deepEqual(theirs.body, missing.body);
      assert.ok(!theirs.raw.includes(fund.body.data.transaction.id));
    });

    test('every bad credential is 401', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const other = await fundedUser(h.app, '1');
      await expectRejectsBadCredentials(
        h,
        user,
        other.user,
        'GET',
        `/api/v1/agent-wallets/${walletId}/transactions`,
      );
    });

    test('an expired token is 401', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      await expectExpiredTokenRejected(h, user, 'GET', `/api/v1/agent-wallets/${walletId}/transactions`);
    });
  });
}
