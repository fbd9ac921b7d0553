import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /auth/signup happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'signup_happy');
    });
    after(() => h.close());

    test('creates the user, a master wallet, and a 7-day session token', async () => {
      const reply = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: '  New.User@Example.COM ',
        password: 'a long enough password',
      });
      assert.equal(reply.status, 201);
      assert.equal(reply.body.success, true);
      const { user, token } = reply.body.data;
      assert.equal(user.email, 'new.user@example.com');
      assert.match(user.id, /^usr_/);
      assert.equal(user.createdAt, new Date(h.clock.nowMs()).toISOString());
      assert.equal(user.passwordHash, undefined);
      const claims = decodeJwt(token);
      assert.equal(claims.sub, user.id);
      assert.equal(claims.exp! - claims.iat!, 7 * 24 * 3600);
      assert.equal(typeof claims.jti, 'string');

      const wallet = await call(h.app, 'GET', '/api/v1/wallet', undefined, { token });
      assert.equal(wallet.status, 200);
      assert.equal(wallet.body.data.balance, '0.000000');
      assert.equal(wallet.body.data.currency, 'USDC');
      assert.match(wallet.body.data.address, /^0x[0-9a-fA-F]{40}$/);
    });

    test('accepts strong passwords of exactly 8 and 128 characters (code points)', async () => {
      // Eight ASCII characters are at most 10^8 guesses to the estimator (score 2): an emoji makes the eighth count.
      for (const [i, password] of ['Zq7!vR2🦊', `Zq7!vR2#${'y'.repeat(120)}`].entries()) {
        const reply = await call(h.app, 'POST', '/api/v1/auth/signup', {
          email: `edge${i}@example.com`,
          password,
        });
        assert.equal(reply.status, 201, reply.raw);
      }
    });
  });
}
