import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertNoSecrets,
  expectExpiredTokenRejected,
  expectRejectsBadCredentials,
  SESSION_SECONDS,
} from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /auth/me security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'me_security');
    });
    after(() => h.close());

    test('every bad credential (tampered, alg none, foreign secret, logged out, API key...) is 401', async () => {
      const user = await signupUser(h.app);
      const other = await signupUser(h.app);
      await expectRejectsBadCredentials(h, user, other, 'GET', '/api/v1/auth/me');
    });

    test('a token past its exp (clock + 7 days + 1 s) is 401, before it is 200', async () => {
      const user = await signupUser(h.app);
      await expectExpiredTokenRejected(h, user, 'GET', '/api/v1/auth/me');
    });

    test('the signup token itself expires exactly 7 days after issue', async () => {
      const user = await signupUser(h.app);
      const start = h.clock.nowMs();
      try {
        h.clock.advanceSeconds(SESSION_SECONDS);
        expectError(await user.api.get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
      } finally {
        h.clock.setMs(start);
      }
      assert.equal((await user.api.get('/api/v1/auth/me')).status, 200);
    });

    test('each user sees only themselves, and no secret', async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      const meA = await a.api.get('/api/v1/auth/me');
      const meB = await b.api.get('/api/v1/auth/me');
      assert.equal(meA.body.data.user.id, a.id);
      assert.equal(meB.body.data.user.id, b.id);
      for (const reply of [meA, meB]) assertNoSecrets(h, reply, [a.password, a.token, b.token]);
    });

    test('the 401 message does not echo the token', async () => {
      const user = await signupUser(h.app);
      const forged = `${user.token}x`;
      const reply = await call(h.app, 'GET', '/api/v1/auth/me', undefined, { token: forged });
      expectError(reply, 401, 'UNAUTHORIZED');
      assert.ok(!reply.raw.includes(user.token.split('.')[1]!));
    });
  });
}
