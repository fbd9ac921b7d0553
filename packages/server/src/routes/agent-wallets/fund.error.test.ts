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
  describe(`POST /agent-wallets/:id/fund errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let walletId: string;
    let url: string;
    const BALANCES = { master: '90.000000', agent: '10.000000' };
    before(async () => {
      h = await startHarness(target.name, 'aw_fund_error');
      ({ user, walletId } = await fundedUser(h.app, '100'));
      url = `/api/v1/agent-wallets/${walletId}/fund`;
      assert.equal((await user.api.post(url, { amount: '10' })).status, 200);
    });
    after(() => h.close());

    for (const bad of BAD_AMOUNTS) {
      test(`an amount that is ${bad.name} is 400 naming amount; no balance moves`, async () => {
        const state = await storeState(h);
        expectValidation(await user.api.post(url, withAmount(bad.value)), 'amount', bad.reason);
        await assertStoreUnchanged(h, state, `funding ${bad.name}`);
        assert.deepEqual(await balancesOf(user, walletId), BALANCES);
      });
    }

    test('more than the master balance is 422 INSUFFICIENT_BALANCE; nothing moves', async () => {
      const state = await storeState(h);
      const reply = await user.api.post(url, { amount: '90.000001' });
      expectError(reply, 422, 'INSUFFICIENT_BALANCE');
      expectError(await user.api.post(url, { amount: '1000000000' }), 422, 'INSUFFICIENT_BALANCE');
      await assertStoreUnchanged(h, state, 'an overdraft');
      assert.deepEqual(await balancesOf(user, walletId), BALANCES);
    });

    test('an unknown wallet and the master wallet are 404 NOT_FOUND; nothing moves', async () => {
      const state = await storeState(h);
      expectError(
        await user.api.post('/api/v1/agent-wallets/wal_nope/fund', { amount: '1' }),
        404,
        'NOT_FOUND',
      );
      const master = await user.api.get('/api/v1/wallet');
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${master.body.data.id}/fund`, { amount: '1' }),
        404,
        'NOT_FOUND',
      );
      await assertStoreUnchanged(h, state, 'funding an unknown wallet');
    });

    test('a 404 with an idempotency key stores nothing: the same request is 404 again, the key stays free', async () => {
      const state = await storeState(h);
      const headers = { 'idempotency-key': 'missing-wallet-key' };
      for (let i = 0; i < 2; i += 1) {
        expectError(
          await user.api.post('/api/v1/agent-wallets/wal_nope/fund', { amount: '1' }, { headers }),
          404,
          'NOT_FOUND',
        );
      }
      await assertStoreUnchanged(h, state, 'a 404 with a key');
      const used = await user.api.post(url, { amount: '1' }, { headers });
      assert.equal(used.status, 200, used.raw);
      assert.equal(
        (await user.api.post(url, { amount: '1' }, { headers })).body.data.transaction.id,
        used.body.data.transaction.id,
      );
      await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '1' });
      assert.deepEqual(await balancesOf(user, walletId), BALANCES);
    });

    test('unknown fields are 400 naming them; nothing moves', async () => {
      const state = await storeState(h);
      expectValidation(await user.api.post(url, { amount: '1', from: 'wal_other' }), 'from', /unknown field/);
      expectValidation(await user.api.post(url, { amount: '1', memo: 'x' }), 'memo', /unknown field/);
      await assertStoreUnchanged(h, state, 'a refused fund');
    });

    test('bad idempotency keys are 400; nothing moves and nothing is stored', async () => {
      const state = await storeState(h);
      expectValidation(await user.api.post(url, { amount: '1', idempotencyKey: '' }), 'idempotencyKey');
      expectValidation(
        await user.api.post(url, { amount: '1', idempotencyKey: 'k'.repeat(256) }),
        'idempotencyKey',
      );
      expectValidation(
        await user.api.post(url, { amount: '1', idempotencyKey: 42 }),
        'idempotencyKey',
        /string/,
      );
      expectValidation(
        await user.api.post(url, { amount: '1' }, { headers: { 'idempotency-key': 'k'.repeat(256) } }),
        'Idempotency-Key',
      );
      expectValidation(
        await user.api.post(url, { amount: '1' }, { headers: { 'idempotency-key': '' } }),
        'Idempotency-Key',
      );
      expectValidation(
        await user.api.post(
          url,
          { amount: '1', idempotencyKey: 'a' },
          { headers: { 'idempotency-key': 'b' } },
        ),
        'Idempotency-Key',
      );
      await assertStoreUnchanged(h, state, 'a refused key');
    });

    test('malformed JSON, no body, a non-object, text/plain and 65 KiB are refused; nothing moves', async () => {
      const state = await storeState(h);
      expectError(await user.api.post(url, '{"amount":"1",}'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(url), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(url, '"1"'), 400, 'VALIDATION_ERROR');
      expectError(
        await user.api.post(url, '{"amount":"1"}', { headers: { 'content-type': 'text/plain' } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await user.api.post(url, { amount: '1', idempotencyKey: 'x'.repeat(70_000) }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      await assertStoreUnchanged(h, state, 'a refused fund');
    });
  });
}
