import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet/balance security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'wallet_balance_security');
    });
    after(() => h.close());

    test('every bad credential is 401', async () => {
      await expectRejectsBadCredentials(
        h,
        await signupUser(h.app),
        await signupUser(h.app),
        'GET',
        '/api/v1/wallet/balance',
      );
    });

    test('an expired token is 401', async () => {
      await expectExpiredTokenRejected(h, await signupUser(h.app), 'GET', '/api/v1/wallet/balance');
    });

    test("one user's deposits never show in another's balance", async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      await a.api.post('/api/v1/wallet/sandbox/deposit', { amount: '7' });
      await b.api.post('/api/v1/wallet/sandbox/deposit', { amount: '9' });
      assert.equal((await a.api.get('/api/v1/wallet/balance')).body.data.balance, '7.000000');
      assert.equal((await b.api.get('/api/v1/wallet/balance')).body.data.balance, '9.000000');
    });
  });
}
