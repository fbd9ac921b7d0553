// A forgotten password through the operator's reset link (services/identity/password-reset.ts; the CLI that prints it is
// in cli-verify-ledger.test.ts): the link sets a new password once, within the hour, only the newest one works,
// every session ends, a second factor still guards the next login, and the member sees a security event. Both
// stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generate } from 'otplib';
import { issuePasswordReset, RESET_TTL_MS } from '../src/services/identity/password-reset.ts';
import { GENEROUS_RATE_LIMITS, type Harness, startHarness, storeTargets } from './support/harness.ts';
import { as, call, expectError, signupUser, type TestUser } from './support/http.ts';
import { probeService, REDIS_URL, uniqueName } from './support/services.ts';

const redis = await probeService('Redis', REDIS_URL);

const NEW_PASSWORD = 'a brand new passphrase';

for (const target of await storeTargets()) {
  describe(`password reset by the operator's link (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      // Three failed logins lock an account out; on PostgreSQL the limiter is Redis's, as deployed.
      const limits = { ...JSON.parse(GENEROUS_RATE_LIMITS), login_account: 3 };
      h = await startHarness(target.name, 'password_reset', {
        env: {
          RATE_LIMITS: JSON.stringify(limits),
          ...(target.name === 'postgres' && redis.available
            ? { REDIS_URL, REDIS_PREFIX: `${uniqueName('reset')}:` }
            : {}),
        },
      });
    });
    after(() => h?.close());

    const issue = async (user: TestUser) => {
      const issued = await issuePasswordReset(
        h.services.store.db,
        ` ${user.email.toUpperCase()} `,
        h.clock.nowMs(),
      );
      assert.ok(issued !== null, 'the account is found by its email, whatever the case and spaces');
      assert.match(issued.token, /^pwr_[0-9A-Za-z]{40}$/);
      return issued.token;
    };
    const reset = (token: string, newPassword = NEW_PASSWORD) =>
      call(h.app, 'POST', '/api/v1/auth/password/reset', { token, newPassword });
    const login = (email: string, password: string) =>
      call(h.app, 'POST', '/api/v1/auth/login', { email, password });

    test('the link sets the password once; every session ends; the old password is refused', async () => {
      const user = await signupUser(h.app, 'reset');
      const second = (await login(user.email, user.password)).body.data.token as string;
      const token = await issue(user);
      const answer = await reset(token);
      assert.equal(answer.status, 200, answer.raw);
      assert.deepEqual(answer.body.data, { passwordReset: true, endedSessions: 2 });
      assert.equal(answer.raw.includes(token), false);
      for (const session of [user.token, second])
        expectError(await as(h.app, session).get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
      expectError(await login(user.email, user.password), 401, 'INVALID_CREDENTIALS');
      const fresh = await login(user.email, NEW_PASSWORD);
      assert.equal(fresh.status, 200, fresh.raw);
      expectError(await reset(token, 'yet another passphrase'), 401, 'UNAUTHORIZED');
      const events = await as(h.app, fresh.body.data.token).get('/api/v1/auth/security-events');
      const changed = events.body.data.items.find(
        (e: { type: string }) => e.type === 'security.password_changed',
      );
      assert.deepEqual(changed?.detail, { endedSessions: '2', by: 'reset link' });
    });

    test('refused: an expired link, an older link once a newer exists, a forged one; a weak password spends nothing', async () => {
      const user = await signupUser(h.app, 'reset');
      const expired = await issue(user);
      h.clock.advanceMs(RESET_TTL_MS);
      expectError(await reset(expired), 401, 'UNAUTHORIZED');
      const older = await issue(user);
      const newer = await issue(user);
      expectError(await reset(older), 401, 'UNAUTHORIZED');
      expectError(await reset(`pwr_${'A'.repeat(40)}`), 401, 'UNAUTHORIZED');
      expectError(await reset('not-a-token'), 401, 'UNAUTHORIZED');
      expectError(await reset(newer, 'password'), 400, 'VALIDATION_ERROR');
      assert.equal((await reset(newer)).status, 200, 'the weak attempt did not use the link');
      assert.equal(
        await issuePasswordReset(h.services.store.db, 'nobody@example.test', h.clock.nowMs()),
        null,
      );
    });

    test('a lock-out earned by guessing the old password ends with the reset', async () => {
      const user = await signupUser(h.app, 'reset');
      for (let i = 0; i < 3; i += 1)
        expectError(await login(user.email, 'wrong guess'), 401, 'INVALID_CREDENTIALS');
      expectError(await login(user.email, user.password), 429, 'RATE_LIMITED');
      assert.equal((await reset(await issue(user))).status, 200);
      assert.equal((await login(user.email, NEW_PASSWORD)).status, 200, 'the new password opens at once');
    });

    test('a second factor stays: the next login still asks for it', async () => {
      const user = await signupUser(h.app, 'reset');
      const started = await user.api.post('/api/v1/auth/mfa/totp');
      assert.equal(started.status, 200, started.raw);
      const secret: string = started.body.data.secret;
      const code = await generate({ secret, epoch: Math.floor(h.clock.nowMs() / 1000) });
      assert.equal((await user.api.post('/api/v1/auth/mfa/totp/confirm', { code })).status, 200);
      assert.equal((await reset(await issue(user))).status, 200);
      expectError(await login(user.email, NEW_PASSWORD), 401, 'MFA_REQUIRED');
    });
  });
}
