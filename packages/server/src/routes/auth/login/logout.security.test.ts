import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  algNone,
  expectExpiredTokenRejected,
  expectRejectsBadCredentials,
  resign,
  tamperSignature,
} from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /auth/logout security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'logout_security');
    });
    after(() => h.close());

    test('every bad credential is 401 and revokes nothing', async () => {
      const user = await signupUser(h.app);
      const other = await signupUser(h.app);
      await expectRejectsBadCredentials(h, user, other, 'POST', '/api/v1/auth/logout');
      assert.equal((await user.api.get('/api/v1/auth/me')).status, 200);
      assert.equal((await other.api.get('/api/v1/auth/me')).status, 200);
    });

    test('a forged token naming a session cannot end it', async () => {
      const user = await signupUser(h.app);
      for (const forged of [tamperSignature(user.token), algNone(user.token), await resign(user.token)]) {
        expectError(
          await call(h.app, 'POST', '/api/v1/auth/logout', undefined, { token: forged }),
          401,
          'UNAUTHORIZED',
        );
      }
      assert.equal((await user.api.get('/api/v1/auth/me')).status, 200, 'a forged logout ended the session');
    });

    test("one user's logout does not end another user's session", async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      assert.equal((await a.api.post('/api/v1/auth/logout')).status, 200);
      assert.equal((await b.api.get('/api/v1/auth/me')).status, 200);
    });

    test('an expired token cannot log out', async () => {
      const user = await signupUser(h.app);
      await expectExpiredTokenRejected(h, user, 'POST', '/api/v1/auth/logout');
    });
  });
}
