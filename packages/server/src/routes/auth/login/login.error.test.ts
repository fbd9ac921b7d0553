import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStoreUnchanged, expectValidation, storeState } from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError, signupUser, type TestUser } from '../../../../test/support/http.ts';

const LOGIN = '/api/v1/auth/login';

for (const target of await storeTargets()) {
  describe(`POST /auth/login errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    before(async () => {
      h = await startHarness(target.name, 'login_error');
      user = await signupUser(h.app);
    });
    after(() => h.close());

    test('a wrong password and an unknown email get the same 401 INVALID_CREDENTIALS body', async () => {
      const state = await storeState(h);
      const sessionsBefore = await countSessions(h);
      const wrongPassword = await call(h.app, 'POST', LOGIN, {
        email: user.email,
        password: 'not the password',
      });
      const unknownEmail = await call(h.app, 'POST', LOGIN, {
        email: 'nobody@example.com',
        password: 'not the password',
      });
      const wrongCase = await call(h.app, 'POST', LOGIN, {
        email: user.email,
        password: user.password.toUpperCase(),
      });
      expectError(wrongPassword, 401, 'INVALID_CREDENTIALS');
      expectError(unknownEmail, 401, 'INVALID_CREDENTIALS');
      expectError(wrongCase, 401, 'INVALID_CREDENTIALS');
      assert.deepEqual(wrongPassword.body, unknownEmail.body);
      assert.deepEqual(wrongCase.body, unknownEmail.body);
      assert.equal(wrongPassword.headers['content-length'], unknownEmail.headers['content-length']);
      assert.equal(await countSessions(h), sessionsBefore, 'a failed login started a session');
      await assertStoreUnchanged(h, state, 'a failed login');
    });

    test('missing fields are 400 naming the field', async () => {
      expectValidation(await call(h.app, 'POST', LOGIN, { password: user.password }), 'email', /required/);
      expectValidation(await call(h.app, 'POST', LOGIN, { email: user.email }), 'password', /required/);
    });

    test('ill-typed fields and an empty password are 400 naming the field', async () => {
      expectValidation(
        await call(h.app, 'POST', LOGIN, { email: user.email, password: 12345678 }),
        'password',
        /string/,
      );
      expectValidation(
        await call(h.app, 'POST', LOGIN, { email: 7, password: user.password }),
        'email',
        /string/,
      );
      expectValidation(
        await call(h.app, 'POST', LOGIN, { email: user.email, password: '' }),
        'password',
        /empty/,
      );
      expectValidation(
        await call(h.app, 'POST', LOGIN, { email: 'not-an-email', password: 'whatever1' }),
        'email',
      );
    });

    test('an unknown field is 400 naming it', async () => {
      const reply = await call(h.app, 'POST', LOGIN, {
        email: user.email,
        password: user.password,
        remember: true,
      });
      expectValidation(reply, 'remember', /unknown field/);
    });

    test('malformed JSON, a non-object body, a wrong content type and an oversized body are refused', async () => {
      expectError(await call(h.app, 'POST', LOGIN, '{"email":'), 400, 'VALIDATION_ERROR');
      expectError(await call(h.app, 'POST', LOGIN, '[1,2]'), 400, 'VALIDATION_ERROR');
      expectError(await call(h.app, 'POST', LOGIN), 400, 'VALIDATION_ERROR');
      expectError(
        await call(h.app, 'POST', LOGIN, JSON.stringify({ email: user.email, password: user.password }), {
          headers: { 'content-type': 'text/plain' },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await call(h.app, 'POST', LOGIN, { email: user.email, password: 'x'.repeat(66_000) }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });
  });
}

async function countSessions(h: Harness): Promise<number> {
  const row = await h.services.store.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
