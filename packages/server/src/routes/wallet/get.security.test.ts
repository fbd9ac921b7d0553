import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertNoSecrets,
  expectExpiredTokenRejected,
  expectRejectsBadCredentials,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'wallet_get_security');
    });
    after(() => h.close());

    test('every bad credential is 401', async () => {
      const user = await signupUser(h.app);
      const other = await signupUser(h.app);
      await expectRejectsBadCredentials(h, user, other, 'GET', '/api/v1/wallet');
    });

    test('an expired token is 401', async () => {
      await expectExpiredTokenRejected(h, await signupUser(h.app), 'GET', '/api/v1/wallet');
    });

    test('each user sees only their own master wallet and balance', async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      await b.api.post('/api/v1/wallet/sandbox/deposit', { amount: '500' });
      const wa = await a.api.get('/api/v1/wallet');
      const wb = await b.api.get('/api/v1/wallet');
      assert.notEqual(wa.body.data.id, wb.body.data.id);
      assert.notEqual(wa.body.data.address, wb.body.data.address);
      assert.equal(wa.body.data.balance, '0.000000');
      assert.equal(wb.body.data.balance, '500.000000');
      assertNoSecrets(h, wa, [a.token, a.password]);
    });

    test('a query string cannot select another wallet', async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      const wb = await b.api.get('/api/v1/wallet');
      const reply = await a.api.get(`/api/v1/wallet?id=${wb.body.data.id}&userId=${b.id}`);
      if (reply.status === 200) assert.notEqual(reply.body.data.id, wb.body.data.id);
      else assert.equal(reply.status, 400);
    });
  });
}
