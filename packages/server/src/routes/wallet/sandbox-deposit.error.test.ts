import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertStoreUnchanged,
  BAD_AMOUNTS,
  expectValidation,
  storeState,
  withAmount,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

const DEPOSIT = '/api/v1/wallet/sandbox/deposit';

for (const target of await storeTargets()) {
  describe(`POST /wallet/sandbox/deposit errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    before(async () => {
      h = await startHarness(target.name, 'sandbox_deposit_error');
      user = await signupUser(h.app);
      await user.api.post(DEPOSIT, { amount: '5' });
    });
    after(() => h.close());

    for (const bad of BAD_AMOUNTS) {
      test(`an amount that is ${bad.name} is 400 naming amount; nothing is credited`, async () => {
        const state = await storeState(h);
        const reply = await user.api.post(DEPOSIT, withAmount(bad.value));
        expectValidation(reply, 'amount', bad.reason);
        await assertStoreUnchanged(h, state, `a deposit of ${bad.name}`);
        assert.equal((await user.api.get('/api/v1/wallet/balance')).body.data.balance, '5.000000');
      });
    }

    test('an unknown field is 400 naming it', async () => {
      const state = await storeState(h);
      expectValidation(
        await user.api.post(DEPOSIT, { amount: '1', currency: 'USDC' }),
        'currency',
        /unknown field/,
      );
      expectValidation(
        await user.api.post(DEPOSIT, { amount: '1', walletId: 'wal_x' }),
        'walletId',
        /unknown field/,
      );
      await assertStoreUnchanged(h, state, 'a refused deposit');
    });

    test('malformed JSON, no body, a non-object, text/plain and 65 KiB are refused; nothing is credited', async () => {
      const state = await storeState(h);
      expectError(await user.api.post(DEPOSIT, '{"amount": "1"'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(DEPOSIT), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(DEPOSIT, '["1"]'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(DEPOSIT, '"1"'), 400, 'VALIDATION_ERROR');
      expectError(
        await user.api.post(DEPOSIT, '{"amount":"1"}', { headers: { 'content-type': 'text/plain' } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await user.api.post(DEPOSIT, { amount: '1', pad: 'x'.repeat(66 * 1024) }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      await assertStoreUnchanged(h, state, 'a refused deposit');
    });
  });
}
