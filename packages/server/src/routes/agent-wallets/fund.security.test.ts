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

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/fund security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_fund_security');
    });
    after(() => h.close());

    test("funding another user's wallet is 404 NOT_FOUND and moves nothing on either side", async () => {
      const owner = await fundedUser(h.app, '50');
      const intruder = await fundedUser(h.app, '50');
      const state = await storeState(h);
      const reply = await intruder.user.api.post(`/api/v1/agent-wallets/${owner.walletId}/fund`, {
        amount: '5',
      });
      expectError(reply, 404, 'NOT_FOUND');
      const missing = await intruder.user.api.post('/api/v1/agent-wallets/wal_missing/fund', { amount: '5' });
      assert.deepEqual(reply.body, missing.body);
      const keyed = await intruder.user.api.post(
        `/api/v1/agent-wallets/${owner.walletId}/fund`,
        { amount: '5' },
        { headers: { 'idempotency-key': 'k1' } },
      );
      expectError(keyed, 404, 'NOT_FOUND');
      await assertStoreUnchanged(h, state, "funding another user's wallet");
      assert.deepEqual(await balancesOf(owner.user, owner.walletId), {
        master: '50.000000',
        agent: '0.000000',
      });
      assert.deepEqual(await balancesOf(intruder.user, intruder.walletId), {
        master: '50.000000',
        agent: '0.000000',
      });
    });

    test("idempotency keys are per user: the same key never replays another user's result", async () => {
      const a = await fundedUser(h.app, '50');
      const b = await fundedUser(h.app, '50');
      const headers = { 'idempotency-key': 'shared-key' };
      const ra = await a.user.api.post(
        `/api/v1/agent-wallets/${a.walletId}/fund`,
        { amount: '5' },
        { headers },
      );
      const rb = await b.user.api.post(
        `/api/v1/agent-wallets/${b.walletId}/fund`,
        { amount: '7' },
        { headers },
      );
      assert.equal(ra.status, 200, ra.raw);
      assert.equal(rb.status, 200, rb.raw);
      assert.equal(rb.body.data.transaction.walletId, b.walletId);
      assert.equal(rb.body.data.transaction.amount, '7.000000');
      assert.deepEqual(await balancesOf(b.user, b.walletId), { master: '43.000000', agent: '7.000000' });
    });

    test('every bad credential is 401 and moves nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '50');
      const other = await fundedUser(h.app, '1');
      await expectRejectsBadCredentials(
        h,
        user,
        other.user,
        'POST',
        `/api/v1/agent-wallets/${walletId}/fund`,
        {
          amount: '5',
        },
      );
      assert.deepEqual(await balancesOf(user, walletId), { master: '50.000000', agent: '0.000000' });
    });

    test('an expired token is 401 and moves nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '50');
      await expectExpiredTokenRejected(h, user, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, {
        amount: '5',
      });
      assert.deepEqual(await balancesOf(user, walletId), { master: '50.000000', agent: '0.000000' });
    });

    test('an idempotency key with a NUL byte is refused or used, never a 500', async () => {
      const { user, walletId } = await fundedUser(h.app, '50');
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, {
        amount: '1',
        idempotencyKey: 'nul\u0000key',
      });
      assert.ok(reply.status === 200 || reply.status === 400, `${reply.status} ${reply.raw}`);
    });
  });
}
