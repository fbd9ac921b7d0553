// Weak passwords found by an outside security test ("aaaaaaaaaaaa", "123456789012", "abcdefghijkl" were accepted:
// only the 10,000 most common were refused). Every place a password is set — signup, a password change, the
// operator's reset link — now asks zxcvbn for a score of at least 3: each of them answers 400 VALIDATION_ERROR naming
// the field, saying why (the estimator's advice, never the password), and changes nothing. The rule is pure, so
// one store is enough here; domain/identity/passwords.test.ts holds it in detail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issuePasswordReset } from '../src/services/identity/password-reset.ts';
import { assertStoreUnchanged, expectValidation, storeState } from './support/foundation.ts';
import { GENEROUS_RATE_LIMITS, type Harness, startHarness } from './support/harness.ts';
import { call, signupUser } from './support/http.ts';

const WEAK: ReadonlyArray<[string, RegExp]> = [
  ['aaaaaaaaaaaa', /Repeated characters/],
  ['123456789012', /commonly used password/],
  ['abcdefghijkl', /Common character sequences/],
  ['Zq7!vR2#', /Add more words/],
];
const TOO_EASY = /too easy to guess \(strength [0-2] of 4, at least 3 needed\)/;

describe('weak passwords are refused wherever a password is set', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'password_strength', { env: { RATE_LIMITS: GENEROUS_RATE_LIMITS } });
  });
  after(() => h?.close());

  const login = (email: string, password: string) =>
    call(h.app, 'POST', '/api/v1/auth/login', { email, password });

  test('signup: 400 naming password with the estimator’s reason; no account is created', async () => {
    const state = await storeState(h);
    for (const [password, advice] of WEAK) {
      const reply = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: 'weak@example.test',
        password,
      });
      expectValidation(reply, 'password', TOO_EASY);
      assert.match(reply.body.error.message, advice);
      assert.ok(!reply.raw.includes(password), `the reason quotes the password: ${reply.raw}`);
    }
    await assertStoreUnchanged(h, state, 'a refused signup');
  });

  test('password change: 400 naming newPassword; the old password still logs in', async () => {
    const user = await signupUser(h.app, 'change');
    for (const [password, advice] of WEAK) {
      const reply = await user.api.post('/api/v1/auth/password', {
        currentPassword: user.password,
        newPassword: password,
      });
      expectValidation(reply, 'newPassword', TOO_EASY);
      assert.match(reply.body.error.message, advice);
      assert.equal((await login(user.email, password)).status, 401);
    }
    assert.equal((await login(user.email, user.password)).status, 200);
  });

  test('reset link: 400 naming newPassword; the link is not spent and a strong password then works', async () => {
    const user = await signupUser(h.app, 'reset');
    const issued = await issuePasswordReset(h.services.store.db, user.email, h.clock.nowMs());
    assert.ok(issued !== null);
    const reset = (newPassword: string) =>
      call(h.app, 'POST', '/api/v1/auth/password/reset', { token: issued.token, newPassword });
    for (const [password, advice] of WEAK) {
      const reply = await reset(password);
      expectValidation(reply, 'newPassword', TOO_EASY);
      assert.match(reply.body.error.message, advice);
    }
    assert.equal((await login(user.email, user.password)).status, 200, 'the old password is untouched');
    assert.equal((await reset('a sturdy new passphrase')).status, 200);
    assert.equal((await login(user.email, 'a sturdy new passphrase')).status, 200);
  });
});
