import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { assertIso, assertKeys, SESSION_SECONDS, USER_KEYS } from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, signupUser } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /auth/login happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'login_happy');
    });
    after(() => h.close());

    test('answers 200 {user, token} with a new 7-day session for the same user', async () => {
      const user = await signupUser(h.app);
      const signedUpAt = new Date(h.clock.nowMs()).toISOString();
      h.clock.advanceSeconds(90);
      const reply = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: user.email,
        password: user.password,
      });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assertKeys(reply.body.data, ['user', 'token']);
      assertKeys(reply.body.data.user, USER_KEYS);
      assert.deepEqual(reply.body.data.user, { id: user.id, email: user.email, createdAt: signedUpAt });
      assertIso(reply.body.data.user.createdAt);
      const token: string = reply.body.data.token;
      assert.notEqual(token, user.token);
      const claims = decodeJwt(token);
      assert.equal(claims.sub, user.id);
      assert.equal(claims.iat, Math.floor(h.clock.nowMs() / 1000));
      assert.equal(claims.exp! - claims.iat!, SESSION_SECONDS);
      assert.notEqual(claims.jti, decodeJwt(user.token).jti);

      const me = await call(h.app, 'GET', '/api/v1/auth/me', undefined, { token });
      assert.equal(me.status, 200, me.raw);
      assert.equal(me.body.data.user.id, user.id);
    });

    test('the email is trimmed and lower-cased before lookup', async () => {
      const user = await signupUser(h.app);
      const reply = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: `  ${user.email.toUpperCase()}  `,
        password: user.password,
      });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.user.id, user.id);
      assert.equal(reply.body.data.user.email, user.email);
    });

    test('several sessions live side by side: both tokens work', async () => {
      const user = await signupUser(h.app);
      const second = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: user.email,
        password: user.password,
      });
      assert.equal(second.status, 200);
      for (const token of [user.token, second.body.data.token as string]) {
        const me = await call(h.app, 'GET', '/api/v1/auth/me', undefined, { token });
        assert.equal(me.status, 200, me.raw);
      }
    });
  });
}
