import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertIso, assertKeys, USER_KEYS } from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /auth/me happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'me_happy');
    });
    after(() => h.close());

    test('answers exactly {user: {id, email, createdAt}} for the token holder', async () => {
      const signup = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: ' Me.Myself@Example.com',
        password: 'a long enough password',
      });
      assert.equal(signup.status, 201, signup.raw);
      h.clock.advanceSeconds(3600);
      const reply = await call(h.app, 'GET', '/api/v1/auth/me', undefined, { token: signup.body.data.token });
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body, ['success', 'data']);
      assertKeys(reply.body.data, ['user']);
      assertKeys(reply.body.data.user, USER_KEYS);
      assert.deepEqual(reply.body.data.user, signup.body.data.user);
      assert.equal(reply.body.data.user.email, 'me.myself@example.com');
      assertIso(reply.body.data.user.createdAt);
    });

    test('a token still works one second before its 7-day expiry', async () => {
      const signup = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: 'almost@example.com',
        password: 'a long enough password',
      });
      const start = h.clock.nowMs();
      h.clock.advanceSeconds(7 * 24 * 3600 - 1);
      try {
        const reply = await call(h.app, 'GET', '/api/v1/auth/me', undefined, {
          token: signup.body.data.token,
        });
        assert.equal(reply.status, 200, reply.raw);
      } finally {
        h.clock.setMs(start);
      }
    });
  });
}
