import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id/transactions/:txId security (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_get_security');
    });
    after(() => h.close());

    test("another user's transaction is 404 NOT_FOUND through their wallet or through one's own", async () => {
      const owner = await fundedUser(h.app, '10');
      const fund = await owner.user.api.post(`/api/v1/agent-wallets/${owner.walletId}/fund`, { amount: '2' });
      const txId: string = fund.body.data.transaction.id;
      const intruder = await fundedUser(h.app, '10');
      const viaTheirs = await intruder.user.api.get(
        `/api/v1/agent-wallets/${owner.walletId}/transactions/${txId}`,
      );
      const viaMine = await intruder.user.api.get(
        `/api/v1/agent-wallets/${intruder.walletId}/transactions/${txId}`,
      );
      const missing = await intruder.user.api.get(
        `/api/v1/agent-wallets/${intruder.walletId}/transactions/tx_missing`,
      );
      expectError(viaTheirs, 404, 'NOT_FOUND');
      expectError(viaMine, 404, 'NOT_FOUND');
      assert.deepEqual(viaMine.body, missing.body);
      for (const reply of [viaTheirs, viaMine]) assert.ok(!reply.raw.includes(owner.user.id));
    });

    test('every bad credential is 401', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const fund = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '2' });
      const other = await fundedUser(h.app, '1');
      await expectRejectsBadCredentials(
        h,
        user,
        other.user,
        'GET',
        `/api/v1/agent-wallets/${walletId}/transactions/${fund.body.data.transaction.id}`,
      );
    });

    test('an expired token is 401', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const fund = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '2' });
      await expectExpiredTokenRejected(
        h,
        user,
        'GET',
        `/api/v1/agent-wallets/${walletId}/transactions/${fund.body.data.transaction.id}`,
      );
    });

    test('a NUL byte in the transaction id is 400 or 404, never a 500', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const reply = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/tx_%00`);
      assert.ok(reply.status === 400 || reply.status === 404, `${reply.status} ${reply.raw}`);
    });
  });
}
