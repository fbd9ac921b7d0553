import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertKeys, assertNoSecrets, USER_KEYS } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

const LOGIN = '/api/v1/auth/login';

for (const target of await storeTargets()) {
  describe(`POST /auth/login security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    before(async () => {
      h = await startHarness(target.name, 'login_security');
      user = await signupUser(h.app);
    });
    after(() => h.close());

    test('the response never includes a password or its hash', async () => {
      const reply = await call(h.app, 'POST', LOGIN, { email: user.email, password: user.password });
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data.user, USER_KEYS);
      assert.ok(!reply.raw.includes(user.password));
      assertNoSecrets(h, reply);
    });

    test('a failed login does not say which part was wrong, nor echo what was sent', async () => {
      const password = 'guessed password 42';
      for (const email of [user.email, 'ghost@example.com']) {
        const reply = await call(h.app, 'POST', LOGIN, { email, password });
        expectError(reply, 401, 'INVALID_CREDENTIALS');
        const message: string = reply.body.error.message;
        assert.ok(!/not found|unknown|no such|does not exist|wrong password/i.test(message), message);
        assert.ok(!reply.raw.includes(password));
        assert.ok(!reply.raw.includes(email), `the error names the email: ${reply.raw}`);
        assertNoSecrets(h, reply);
      }
    });

    test('an over-long password is refused before hashing, with no echo', async () => {
      const password = 'q'.repeat(2_000);
      const reply = await call(h.app, 'POST', LOGIN, { email: user.email, password });
      expectError(reply, 400, 'VALIDATION_ERROR');
      assert.ok(!reply.raw.includes(password));
    });

    test('SQL-looking input is just a wrong credential', async () => {
      for (const email of ["' OR 1=1 --@example.com", `${user.email}' --`]) {
        const reply = await call(h.app, 'POST', LOGIN, { email, password: "' OR '1'='1" });
        assert.ok(reply.status === 400 || reply.status === 401, reply.raw);
        assert.equal(reply.body.success, false);
      }
    });

    test('a password hash is not a password', async () => {
      const row = await h.services.store.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      const reply = await call(h.app, 'POST', LOGIN, { email: user.email, password: row.password_hash });
      expectError(reply, 401, 'INVALID_CREDENTIALS');
    });
  });
}
