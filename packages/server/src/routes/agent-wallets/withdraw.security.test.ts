import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertStoreUnchanged,
  balancesOf,
  expectExpiredTokenRejected,
  expectRejectsBadCredentials,
  storeState,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

async function fundedAgent(h: Harness) {
  const funded = await fundedUser(h.app, '50');
  const reply = await funded.user.api.post(`/api/v1/agent-wallets/${funded.walletId}/fund`, { amount: '20' });
  assert.equal(reply.status, 200, reply.raw);
  return funded;
}

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/withdraw security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_withdraw_security');
    });
    after(() => h.close());

    test("withdrawing from another user's wallet is 404 NOT_FOUND and moves nothing on either side", async () => {
      const owner = await fundedAgent(h);
      const thief = await fundedAgent(h);
      const state = await storeState(h);
      const reply = await thief.user.api.post(`/api/v1/agent-wallets/${owner.walletId}/withdraw`, {
        amount: '20',
      });
      expectError(reply, 404, 'NOT_FOUND');
      const missing = await thief.user.api.post('/api/v1/agent-wallets/wal_missing/withdraw', {
        amount: '20',
      });
      assert.deepEqual(reply.body, missing.body);
      await assertStoreUnchanged(h, state, "withdrawing from another user's wallet");
      assert.deepEqual(await balancesOf(owner.user, owner.walletId), {
        master: '30.000000',
        agent: '20.000000',
      });
      assert.deepEqual(await balancesOf(thief.user, thief.walletId), {
        master: '30.000000',
        agent: '20.000000',
      });
    });

    test('every bad credential is 401 and moves nothing', async () => {
      const { user, walletId } = await fundedAgent(h);
      const other = await fundedUser(h.app, '1');
      await expectRejectsBadCredentials(
        h,
        user,
        other.user,
        'POST',
        `/api/v1/agent-wallets/${walletId}/withdraw`,
        {
          amount: '5',
        },
      );
      assert.deepEqual(await balancesOf(user, walletId), { master: '30.000000', agent: '20.000000' });
    });

    test('an expired token is 401 and moves nothing', async () => {
      const { user, walletId } = await fundedAgent(h);
      await expectExpiredTokenRejected(h, user, 'POST', `/api/v1/agent-wallets/${walletId}/withdraw`, {
        amount: '5',
      });
      assert.deepEqual(await balancesOf(user, walletId), { master: '30.000000', agent: '20.000000' });
    });
  });
}
