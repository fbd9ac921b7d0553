import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet/balance errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'wallet_balance_error');
    });
    after(() => h.close());

    test('without a token: 401 UNAUTHORIZED', async () => {
      expectError(await call(h.app, 'GET', '/api/v1/wallet/balance'), 401, 'UNAUTHORIZED');
    });

    test('writing a balance is a method the path lacks: 405 envelope', async () => {
      const user = await signupUser(h.app);
      expectError(
        await user.api.post('/api/v1/wallet/balance', { balance: '100' }),
        405,
        'METHOD_NOT_ALLOWED',
      );
      expectError(
        await user.api.patch('/api/v1/wallet/balance', { balance: '100' }),
        405,
        'METHOD_NOT_ALLOWED',
      );
      const balance = await user.api.get('/api/v1/wallet/balance');
      assert.equal(balance.body.data.balance, '0.000000');
    });
  });
}
