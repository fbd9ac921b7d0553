import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectExpiredTokenRejected, expectRejectsBadCredentials } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

const DEPOSIT = '/api/v1/wallet/sandbox/deposit';

for (const target of await storeTargets()) {
  describe(`POST /wallet/sandbox/deposit security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'sandbox_deposit_security');
    });
    after(() => h.close());

    test('every bad credential is 401 and credits nothing', async () => {
      const user = await signupUser(h.app);
      await expectRejectsBadCredentials(h, user, await signupUser(h.app), 'POST', DEPOSIT, { amount: '100' });
      assert.equal((await user.api.get('/api/v1/wallet/balance')).body.data.balance, '0.000000');
    });

    test('an expired token is 401 and credits nothing', async () => {
      const user = await signupUser(h.app);
      await expectExpiredTokenRejected(h, user, 'POST', DEPOSIT, { amount: '100' });
      assert.equal((await user.api.get('/api/v1/wallet/balance')).body.data.balance, '0.000000');
    });

    test("a deposit credits only the caller's master wallet", async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      assert.equal((await a.api.post(DEPOSIT, { amount: '42' })).status, 201);
      assert.equal((await a.api.get('/api/v1/wallet/balance')).body.data.balance, '42.000000');
      assert.equal((await b.api.get('/api/v1/wallet/balance')).body.data.balance, '0.000000');
    });
  });
}
