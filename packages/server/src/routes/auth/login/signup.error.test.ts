import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStoreUnchanged, expectValidation, storeState } from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError } from '../../../../test/support/http.ts';

const SIGNUP = '/api/v1/auth/signup';
const PASSWORD = 'a long enough password';

for (const target of await storeTargets()) {
  describe(`POST /auth/signup errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'signup_error');
    });
    after(() => h.close());

    test('a second signup with the same email is 409 EMAIL_TAKEN, whatever its case and whitespace', async () => {
      const first = await call(h.app, 'POST', SIGNUP, { email: 'taken@example.com', password: PASSWORD });
      assert.equal(first.status, 201, first.raw);
      const state = await storeState(h);
      for (const email of [
        'taken@example.com',
        'TAKEN@Example.Com',
        '  taken@example.com\t',
        ' Taken@EXAMPLE.com ',
      ]) {
        const reply = await call(h.app, 'POST', SIGNUP, { email, password: 'another password here' });
        expectError(reply, 409, 'EMAIL_TAKEN');
      }
      await assertStoreUnchanged(h, state, 'a duplicate signup');
      // The first account is untouched: its password still logs in, the second one does not.
      const login = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: 'taken@example.com',
        password: PASSWORD,
      });
      assert.equal(login.status, 200, login.raw);
      const other = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: 'taken@example.com',
        password: 'another password here',
      });
      expectError(other, 401, 'INVALID_CREDENTIALS');
    });

    test('simultaneous signups with one email: exactly one 201, the others 409 EMAIL_TAKEN', async () => {
      const replies = await Promise.all(
        [
          'race@example.com',
          'RACE@example.com',
          ' race@example.com',
          'race@EXAMPLE.com',
          'Race@Example.Com',
        ].map((email) => call(h.app, 'POST', SIGNUP, { email, password: PASSWORD })),
      );
      const created = replies.filter((r) => r.status === 201);
      assert.equal(created.length, 1, replies.map((r) => `${r.status} ${r.raw}`).join('\n'));
      for (const reply of replies) if (reply.status !== 201) expectError(reply, 409, 'EMAIL_TAKEN');
      const users = await h.services.store.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'race@example.com')
        .execute();
      assert.equal(users.length, 1);
      const masters = await h.services.store.db
        .selectFrom('wallets')
        .select('id')
        .where('user_id', '=', users[0]!.id)
        .execute();
      assert.equal(masters.length, 1, 'a refused signup left a wallet behind');
    });

    test('passwords of 7 and 129 characters are 400 naming the password; nothing is created', async () => {
      const state = await storeState(h);
      const short = await call(h.app, 'POST', SIGNUP, {
        email: 'short@example.com',
        password: 'x'.repeat(7),
      });
      expectValidation(short, 'password', /8/);
      const long = await call(h.app, 'POST', SIGNUP, {
        email: 'long@example.com',
        password: 'y'.repeat(129),
      });
      expectValidation(long, 'password', /128/);
      await assertStoreUnchanged(h, state, 'a refused signup');
    });

    test('weak passwords are 400 naming the password and why; nothing is created', async () => {
      const state = await storeState(h);
      const refused: Array<[string, RegExp]> = [
        ['password', /too easy to guess/],
        ['12345678', /too easy to guess/],
        ['PassWord123', /too easy to guess/],
        ['aaaaaaaaaaaa', /too easy to guess .*Repeated characters/],
        ['123456789012', /too easy to guess .*commonly used/],
        ['abcdefghijkl', /too easy to guess .*character sequences/],
        [' '.repeat(8), /only spaces/],
        ['\u00a0\u200b'.repeat(4), /only spaces or invisible/],
        ['\u0000'.repeat(8), /control characters/],
        ['a long\tenough password', /control characters/],
        ['😀'.repeat(7), /at least 8/],
      ];
      for (const [password, reason] of refused) {
        const reply = await call(h.app, 'POST', SIGNUP, { email: 'weak@example.com', password });
        expectValidation(reply, 'password', reason);
      }
      await assertStoreUnchanged(h, state, 'a refused signup');
    });

    test('missing fields are 400 naming each field', async () => {
      const state = await storeState(h);
      expectValidation(await call(h.app, 'POST', SIGNUP, { password: PASSWORD }), 'email', /required/);
      expectValidation(await call(h.app, 'POST', SIGNUP, { email: 'a@example.com' }), 'password', /required/);
      const neither = await call(h.app, 'POST', SIGNUP, {});
      expectValidation(neither, 'email');
      expectValidation(neither, 'password');
      await assertStoreUnchanged(h, state, 'a refused signup');
    });

    test('ill-typed fields are 400 naming the field', async () => {
      const state = await storeState(h);
      expectValidation(
        await call(h.app, 'POST', SIGNUP, { email: 42, password: PASSWORD }),
        'email',
        /string/,
      );
      expectValidation(
        await call(h.app, 'POST', SIGNUP, { email: 'typed@example.com', password: 12345678 }),
        'password',
        /string/,
      );
      expectValidation(
        await call(h.app, 'POST', SIGNUP, { email: ['typed@example.com'], password: PASSWORD }),
        'email',
      );
      await assertStoreUnchanged(h, state, 'a refused signup');
    });

    test('an invalid or over-long email is 400 naming the email', async () => {
      const state = await storeState(h);
      for (const email of [
        '',
        'not-an-email',
        'a@',
        '@example.com',
        'a b@example.com',
        `${'a'.repeat(250)}@example.com`,
      ]) {
        expectValidation(await call(h.app, 'POST', SIGNUP, { email, password: PASSWORD }), 'email');
      }
      await assertStoreUnchanged(h, state, 'a refused signup');
    });

    test('an unknown field is 400 naming it', async () => {
      const state = await storeState(h);
      const reply = await call(h.app, 'POST', SIGNUP, {
        email: 'extra@example.com',
        password: PASSWORD,
        role: 'admin',
      });
      expectValidation(reply, 'role', /unknown field/);
      await assertStoreUnchanged(h, state, 'a refused signup');
    });

    test('a body that is not a JSON object is 400', async () => {
      const state = await storeState(h);
      expectError(await call(h.app, 'POST', SIGNUP, '{"email": "x@example.com",'), 400, 'VALIDATION_ERROR');
      expectError(await call(h.app, 'POST', SIGNUP, '[]'), 400, 'VALIDATION_ERROR');
      expectError(await call(h.app, 'POST', SIGNUP, 'null'), 400, 'VALIDATION_ERROR');
      expectError(await call(h.app, 'POST', SIGNUP, '"text"'), 400, 'VALIDATION_ERROR');
      expectError(await call(h.app, 'POST', SIGNUP), 400, 'VALIDATION_ERROR');
      expectError(
        await call(h.app, 'POST', SIGNUP, 'email=a@example.com', {
          headers: { 'content-type': 'text/plain' },
        }),
        400,
        'VALIDATION_ERROR',
      );
      await assertStoreUnchanged(h, state, 'a refused signup');
    });

    test('a body over 64 KiB is 413 PAYLOAD_TOO_LARGE', async () => {
      const state = await storeState(h);
      const reply = await call(h.app, 'POST', SIGNUP, {
        email: 'big@example.com',
        password: 'p'.repeat(70_000),
      });
      expectError(reply, 413, 'PAYLOAD_TOO_LARGE');
      await assertStoreUnchanged(h, state, 'a refused signup');
    });
  });
}
