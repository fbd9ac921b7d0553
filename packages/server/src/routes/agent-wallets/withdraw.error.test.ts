import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertStoreUnchanged,
  BAD_AMOUNTS,
  balancesOf,
  expectValidation,
  storeState,
  withAmount,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/withdraw errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let walletId: string;
    let url: string;
    const BALANCES = { master: '70.000000', agent: '30.000000' };
    before(async () => {
      h = await startHarness(target.name, 'aw_withdraw_error');
      ({ user, walletId } = await fundedUser(h.app, '100'));
      url = `/api/v1/agent-wallets/${walletId}/withdraw`;
      assert.equal(
        (await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '30' })).status,
        200,
      );
    });
    after(() => h.close());

    for (const bad of BAD_AMOUNTS) {
      test(`an amount that is ${bad.name} is 400 naming amount; no balance moves`, async () => {
        const state = await storeState(h);
        expectValidation(await user.api.post(url, withAmount(bad.value)), 'amount', bad.reason);
        await assertStoreUnchanged(h, state, `withdrawing ${bad.name}`);
        assert.deepEqual(await balancesOf(user, walletId), BALANCES);
      });
    }

    test('more than the agent balance is 422 INSUFFICIENT_BALANCE; nothing moves', async () => {
      const state = await storeState(h);
      expectError(await user.api.post(url, { amount: '30.000001' }), 422, 'INSUFFICIENT_BALANCE');
      expectError(await user.api.post(url, { amount: '100' }), 422, 'INSUFFICIENT_BALANCE');
      await assertStoreUnchanged(h, state, 'an overdraft');
      assert.deepEqual(await balancesOf(user, walletId), BALANCES);
    });

    test('an empty agent wallet: 422 INSUFFICIENT_BALANCE', async () => {
      const empty = await user.api.post('/api/v1/agent-wallets', { label: 'empty' });
      const state = await storeState(h);
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${empty.body.data.id}/withdraw`, { amount: '0.000001' }),
        422,
        'INSUFFICIENT_BALANCE',
      );
      await assertStoreUnchanged(h, state, 'an overdraft');
    });

    test('an unknown wallet and the master wallet are 404 NOT_FOUND; nothing moves', async () => {
      const state = await storeState(h);
      expectError(
        await user.api.post('/api/v1/agent-wallets/wal_nope/withdraw', { amount: '1' }),
        404,
        'NOT_FOUND',
      );
      const master = await user.api.get('/api/v1/wallet');
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${master.body.data.id}/withdraw`, { amount: '1' }),
        404,
        'NOT_FOUND',
      );
      await assertStoreUnchanged(h, state, 'withdrawing from an unknown wallet');
    });

    test('unknown fields and bad idempotency keys are 400; nothing moves', async () => {
      const state = await storeState(h);
      expectValidation(
        await user.api.post(url, { amount: '1', to: '0x0000000000000000000000000000000000000001' }),
        'to',
      );
      expectValidation(await user.api.post(url, { amount: '1', idempotencyKey: '' }), 'idempotencyKey');
      expectValidation(
        await user.api.post(url, { amount: '1', idempotencyKey: 'x'.repeat(256) }),
        'idempotencyKey',
      );
      await assertStoreUnchanged(h, state, 'a refused withdrawal');
    });

    test('malformed JSON, no body, text/plain and 65 KiB are refused; nothing moves', async () => {
      const state = await storeState(h);
      expectError(await user.api.post(url, "{'amount':'1'}"), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(url), 400, 'VALIDATION_ERROR');
      expectError(
        await user.api.post(url, '{"amount":"1"}', { headers: { 'content-type': 'text/plain' } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await user.api.post(url, { amount: '1', pad: 'x'.repeat(70_000) }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      await assertStoreUnchanged(h, state, 'a refused withdrawal');
    });
  });
}
