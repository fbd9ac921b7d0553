import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import {
  assertKeys,
  assertNoSecrets,
  assertStoreUnchanged,
  expectValidation,
  storeState,
  USER_KEYS,
} from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError } from '../../../../test/support/http.ts';

const SIGNUP = '/api/v1/auth/signup';

for (const target of await storeTargets()) {
  describe(`POST /auth/signup security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'signup_security');
    });
    after(() => h.close());

    test('the response is exactly {user: {id, email, createdAt}, token}: no password, no hash, no secret', async () => {
      const password = 'my very secret password';
      const reply = await call(h.app, 'POST', SIGNUP, { email: 'shape@example.com', password });
      assert.equal(reply.status, 201, reply.raw);
      assertKeys(reply.body, ['success', 'data']);
      assertKeys(reply.body.data, ['user', 'token']);
      assertKeys(reply.body.data.user, USER_KEYS);
      assert.ok(!reply.raw.includes(password), 'the response echoes the password');
      assertNoSecrets(h, reply);
      assert.deepEqual(decodeProtectedHeader(reply.body.data.token), { alg: 'HS256', typ: 'JWT' });
    });

    test('the password is stored only as an argon2id hash', async () => {
      const password = 'stored password 123';
      const reply = await call(h.app, 'POST', SIGNUP, { email: 'hash@example.com', password });
      assert.equal(reply.status, 201, reply.raw);
      const row = await h.services.store.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', reply.body.data.user.id)
        .executeTakeFirstOrThrow();
      assert.match(row.password_hash, /^\$argon2id\$/);
      assert.ok(!row.password_hash.includes(password));
    });

    test('refusals never echo the password', async () => {
      for (const password of [
        'short12',
        'z'.repeat(129),
        'Qwertyuiop',
        '12345678',
        'iloveyou',
        '\u0000'.repeat(8),
      ]) {
        const reply = await call(h.app, 'POST', SIGNUP, { email: 'echo@example.com', password });
        expectValidation(reply, 'password');
        assert.ok(!reply.raw.includes(password), `the error echoes the password: ${reply.raw}`);
        assertNoSecrets(h, reply);
      }
      const dup = await call(h.app, 'POST', SIGNUP, {
        email: 'dup-echo@example.com',
        password: 'first password',
      });
      assert.equal(dup.status, 201);
      const again = await call(h.app, 'POST', SIGNUP, {
        email: 'dup-echo@example.com',
        password: 'second password',
      });
      expectError(again, 409, 'EMAIL_TAKEN');
      assert.ok(!again.raw.includes('second password'));
      assertNoSecrets(h, again);
    });

    test('no mass assignment: id, createdAt, passwordHash or a wallet balance in the body are refused', async () => {
      const state = await storeState(h);
      const base = { email: 'mass@example.com', password: 'a long enough password' };
      for (const [field, value] of Object.entries({
        id: 'usr_chosen',
        createdAt: '2000-01-01T00:00:00.000Z',
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$x$y',
        balance: '1000000',
        isAdmin: true,
      })) {
        expectValidation(
          await call(h.app, 'POST', SIGNUP, { ...base, [field]: value }),
          field,
          /unknown field/,
        );
      }
      await assertStoreUnchanged(h, state, 'a mass-assignment attempt');
    });

    test('a prototype-poisoning body is refused and creates nothing', async () => {
      const state = await storeState(h);
      const reply = await call(
        h.app,
        'POST',
        SIGNUP,
        '{"email":"proto@example.com","password":"a long enough password","__proto__":{"isAdmin":true}}',
      );
      expectError(reply, 400, 'VALIDATION_ERROR');
      await assertStoreUnchanged(h, state, 'a poisoned body');
    });

    test('an Authorization header on signup is ignored: the account is the one the body names', async () => {
      // Signup needs no auth, and a bad Authorization header on it must neither fail nor change who signs up.
      const reply = await call(
        h.app,
        'POST',
        SIGNUP,
        { email: 'with-header@example.com', password: 'a long enough password' },
        { headers: { authorization: 'Bearer garbage' } },
      );
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.data.user.email, 'with-header@example.com');
    });
  });
}
