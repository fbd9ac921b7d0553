// Withdrawals from the master wallet (issue 26, contract section 8) on the sandbox rail, both stores: the address
// book's delay on an injected clock, the active-address rule, idempotency under concurrent duplicates, an
// insufficient balance, an address of this service settling internally, step-up, another user's 404, events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser, signupUser, type TestUser } from './support/http.ts';

const OUTSIDE = `0x${'ab'.repeat(20)}`;
const OTHER_OUTSIDE = `0x${'cd'.repeat(20)}`;
const DAY_SECONDS = 86_400;

for (const target of await storeTargets()) {
  describe(`master withdrawals on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'withdrawals', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    });
    after(() => h?.close());

    const balanceOf = async (user: TestUser) =>
      (await user.api.get('/api/v1/wallet/balance')).body.data.balance;
    /** Adds `address` to the book and waits out the delay on the injected clock (presence proven again after). */
    async function activeAddress(user: TestUser, address: string) {
      const added = await user.api.post('/api/v1/wallet/withdrawal-addresses', {
        address,
        label: 'cold storage',
      });
      assert.equal(added.status, 201, added.raw);
      h.clock.advanceSeconds(DAY_SECONDS);
      assert.equal((await user.api.post('/api/v1/auth/step-up', { password: user.password })).status, 200);
      return added.body.data;
    }

    test('a new address waits a day; then a withdrawal completes at once on the sandbox', async () => {
      const { user } = await fundedUser(h.app, '100');
      const hook = await user.api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
      assert.equal(hook.status, 201, hook.raw);
      const added = await user.api.post('/api/v1/wallet/withdrawal-addresses', {
        address: OUTSIDE,
        label: 'cold storage',
      });
      assert.equal(added.status, 201, added.raw);
      assert.equal(added.body.data.status, 'pending');
      assert.equal(Date.parse(added.body.data.activatesAt) - h.clock.nowMs(), DAY_SECONDS * 1000);
      const early = await user.api.post('/api/v1/wallet/withdrawals', { toAddress: OUTSIDE, amount: '10' });
      expectError(early, 422, 'WITHDRAWAL_ADDRESS_NOT_ALLOWED');
      assert.match(early.body.error.message, new RegExp(`usable from ${added.body.data.activatesAt}`));
      expectError(
        await user.api.post('/api/v1/wallet/withdrawals', { toAddress: OTHER_OUTSIDE, amount: '10' }),
        422,
        'WITHDRAWAL_ADDRESS_NOT_ALLOWED',
      );
      h.clock.advanceSeconds(DAY_SECONDS - 1);
      assert.equal(
        (await user.api.get('/api/v1/wallet/withdrawal-addresses')).body.data.items[0].status,
        'pending',
      );
      h.clock.advanceSeconds(1);
      assert.equal(
        (await user.api.get('/api/v1/wallet/withdrawal-addresses')).body.data.items[0].status,
        'active',
      );
      // A day later the login's presence is stale: withdrawing needs step-up (always).
      const stale = await user.api.post('/api/v1/wallet/withdrawals', { toAddress: OUTSIDE, amount: '10' });
      expectError(stale, 403, 'STEP_UP_REQUIRED');
      assert.equal(await balanceOf(user), '100.000000', 'nothing moved');
      assert.equal((await user.api.post('/api/v1/auth/step-up', { password: user.password })).status, 200);
      const done = await user.api.post('/api/v1/wallet/withdrawals', {
        toAddress: OUTSIDE,
        amount: '10.5',
        memo: 'to cold storage',
      });
      assert.equal(done.status, 201, done.raw);
      assert.equal(done.body.data.status, 'completed');
      assert.equal(done.body.data.rail, 'sandbox');
      assert.equal(done.body.data.amount, '10.500000');
      assert.equal(done.body.data.toAddress.toLowerCase(), OUTSIDE);
      assert.equal(await balanceOf(user), '89.500000');
      const listed = await user.api.get('/api/v1/wallet/withdrawals');
      assert.equal(listed.body.data.total, 1);
      assert.deepEqual(listed.body.data.items[0], done.body.data);
      assert.deepEqual(
        (await user.api.get(`/api/v1/wallet/withdrawals/${done.body.data.id}`)).body.data,
        done.body.data,
      );
      const events = await h.services.store.db
        .selectFrom('webhook_events')
        .select('type')
        .where('user_id', '=', user.id)
        .execute();
      assert.deepEqual(events.map((e) => e.type).sort(), [
        'withdrawal.completed',
        'withdrawal_address.added',
      ]);
      await assertLedgerOk(h);
    });

    test('concurrent duplicates with one idempotency key withdraw once; another amount under it is a conflict', async () => {
      const { user } = await fundedUser(h.app, '100');
      await activeAddress(user, OUTSIDE);
      const body = { toAddress: OUTSIDE, amount: '7', idempotencyKey: 'withdraw-once' };
      const replies = await Promise.all(
        Array.from({ length: 8 }, () => user.api.post('/api/v1/wallet/withdrawals', body)),
      );
      for (const reply of replies) assert.equal(reply.status, 201, reply.raw);
      assert.equal(new Set(replies.map((r) => r.body.data.id)).size, 1, 'one withdrawal');
      assert.equal(await balanceOf(user), '93.000000');
      expectError(
        await user.api.post('/api/v1/wallet/withdrawals', { ...body, amount: '8' }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      assert.equal((await user.api.get('/api/v1/wallet/withdrawals')).body.data.total, 1);
      await assertLedgerOk(h);
    });

    test('more than the master holds is 422 INSUFFICIENT_BALANCE and moves nothing', async () => {
      const { user } = await fundedUser(h.app, '5');
      await activeAddress(user, OUTSIDE);
      expectError(
        await user.api.post('/api/v1/wallet/withdrawals', { toAddress: OUTSIDE, amount: '5.000001' }),
        422,
        'INSUFFICIENT_BALANCE',
      );
      assert.equal(await balanceOf(user), '5.000000');
      assert.equal((await user.api.get('/api/v1/wallet/withdrawals')).body.data.total, 0);
    });

    test('to an address of this service: completed on the internal ledger, credited to its owner', async () => {
      const { user } = await fundedUser(h.app, '50');
      const friend = await signupUser(h.app, 'friend');
      const friendAddress = (await friend.api.get('/api/v1/wallet')).body.data.address.toLowerCase();
      await activeAddress(user, friendAddress);
      const done = await user.api.post('/api/v1/wallet/withdrawals', {
        toAddress: friendAddress,
        amount: '20',
      });
      assert.equal(done.status, 201, done.raw);
      assert.equal(done.body.data.rail, 'internal');
      assert.equal(done.body.data.status, 'completed');
      assert.equal(await balanceOf(friend), '20.000000');
      await assertLedgerOk(h);
    });

    test('the book: own master refused, duplicates 409, removal at once without step-up, others’ entries 404', async () => {
      const user = await signupUser(h.app, 'book');
      const own = (await user.api.get('/api/v1/wallet')).body.data.address;
      expectError(
        await user.api.post('/api/v1/wallet/withdrawal-addresses', { address: own, label: 'me' }),
        400,
        'VALIDATION_ERROR',
      );
      const added = await user.api.post('/api/v1/wallet/withdrawal-addresses', {
        address: OUTSIDE,
        label: 'a',
      });
      expectError(
        await user.api.post('/api/v1/wallet/withdrawal-addresses', {
          address: OUTSIDE.toUpperCase().replace('0X', '0x'),
          label: 'b',
        }),
        409,
        'INVALID_STATE',
      );
      const stranger = await signupUser(h.app, 'stranger');
      expectError(
        await stranger.api.delete(`/api/v1/wallet/withdrawal-addresses/${added.body.data.id}`),
        404,
        'NOT_FOUND',
      );
      h.clock.advanceSeconds(3600);
      const removed = await user.api.delete(`/api/v1/wallet/withdrawal-addresses/${added.body.data.id}`);
      assert.equal(removed.status, 200, removed.raw);
      assert.deepEqual((await user.api.get('/api/v1/wallet/withdrawal-addresses')).body.data.items, []);
      // Adding needs step-up (always), like withdrawing.
      expectError(
        await user.api.post('/api/v1/wallet/withdrawal-addresses', { address: OTHER_OUTSIDE, label: 'c' }),
        403,
        'STEP_UP_REQUIRED',
      );
    });

    test('another user’s withdrawal is 404; bad input is 400 and moves nothing', async () => {
      const { user } = await fundedUser(h.app, '30');
      await activeAddress(user, OUTSIDE);
      const done = await user.api.post('/api/v1/wallet/withdrawals', { toAddress: OUTSIDE, amount: '1' });
      const stranger = await signupUser(h.app, 'stranger');
      expectError(
        await stranger.api.get(`/api/v1/wallet/withdrawals/${done.body.data.id}`),
        404,
        'NOT_FOUND',
      );
      for (const body of [
        { toAddress: OUTSIDE, amount: 1 },
        { toAddress: OUTSIDE, amount: '0' },
        { toAddress: OUTSIDE, amount: '1.0000001' },
        { toAddress: 'not an address', amount: '1' },
        { toAddress: OUTSIDE, amount: '1', extra: true },
      ]) {
        expectError(await user.api.post('/api/v1/wallet/withdrawals', body), 400, 'VALIDATION_ERROR');
      }
      assert.equal(await balanceOf(user), '29.000000');
    });
  });
}
