// Codes are guessable, passkeys are not (contract section 8): wrong TOTP and recovery codes are limited per account
// across every mfaToken, session and IP (10 in 15 minutes, bucket `mfa_code`); past that every code for the
// account, a right one too, is a 429 until the window passes, while a passkey is still judged. An outside test
// guessed past the old limit by taking a fresh mfaToken (the lock-out's bypass) every five guesses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generate } from 'otplib';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError, type Reply, signupUser, type TestUser } from './support/http.ts';
import { probeService, REDIS_URL, uniqueName } from './support/services.ts';
import { softPasskey } from './support/soft-passkey.ts';

const CODE_LIMIT = 10;
const WINDOW_SECONDS = 15 * 60;
const redis = await probeService('Redis', REDIS_URL);

for (const target of await storeTargets()) {
  // On PostgreSQL the limiter is Redis, as deployed with several instances: the limit is shared and atomic there.
  const shared = target.name === 'postgres' && redis.available;
  describe(`guessing codes on ${target.name}${shared ? ' + Redis' : ''}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'codes', {
        env: {
          ...(shared ? { REDIS_URL, REDIS_PREFIX: `${uniqueName('codes')}:` } : {}),
          RATE_LIMITS: JSON.stringify({ login: 100_000, signup: 1_000, default: 100_000 }),
        },
      });
    });
    after(() => h?.close());

    const epoch = () => Math.floor(h.clock.nowMs() / 1000);
    const totpNow = (secret: string) => generate({ secret, epoch: epoch() });
    let ipCounter = 0;
    const freshIp = () => `198.51.100.${(ipCounter++ % 250) + 1}`;
    const login = (user: TestUser, password = user.password) =>
      call(h.app, 'POST', '/api/v1/auth/login', { email: user.email, password }, { ip: freshIp() });
    const finish = (mfaToken: string, code: string) =>
      call(h.app, 'POST', '/api/v1/auth/login/mfa', { mfaToken, code }, { ip: freshIp() });

    async function mfaToken(user: TestUser): Promise<string> {
      const reply = await login(user);
      expectError(reply, 401, 'MFA_REQUIRED');
      return reply.body.error.mfaToken;
    }

    async function userWithTotp(prefix: string) {
      const user = await signupUser(h.app, prefix);
      const started = await user.api.post('/api/v1/auth/mfa/totp');
      const secret: string = started.body.data.secret;
      const confirmed = await user.api.post('/api/v1/auth/mfa/totp/confirm', { code: await totpNow(secret) });
      assert.equal(confirmed.status, 200, confirmed.raw);
      h.clock.advanceSeconds(30); // the confirming code's step is spent
      const wrong = async () => ((await totpNow(secret)) === '000000' ? '111111' : '000000');
      return { user, secret, recoveryCodes: confirmed.body.data.recoveryCodes as string[], wrong };
    }

    /** `count` wrong codes, each mfaToken used for at most four of them, every request from another IP. */
    async function guessWrong(user: TestUser, wrong: () => Promise<string>, count: number): Promise<Reply[]> {
      const replies: Reply[] = [];
      let token = await mfaToken(user);
      for (let i = 0; i < count; i += 1) {
        if (i % 4 === 0) token = await mfaToken(user);
        replies.push(await finish(token, await wrong()));
      }
      return replies;
    }

    const expectLimited = (reply: Reply) => {
      expectError(reply, 429, 'RATE_LIMITED');
      const retryAfter = Number(reply.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After ${retryAfter}`);
    };

    test('ten wrong codes over many mfaTokens and IPs: then every code is refused, a right one and a recovery code too', async () => {
      const { user, secret, recoveryCodes, wrong } = await userWithTotp('guessed');
      const passkey = softPasskey();
      const registration = await user.api.post('/api/v1/auth/passkeys/registration-options');
      assert.equal(registration.status, 200, registration.raw);
      const registered = await user.api.post(
        '/api/v1/auth/passkeys',
        passkey.register(registration.body.data),
      );
      assert.equal(registered.status, 201, registered.raw);
      for (const reply of await guessWrong(user, wrong, CODE_LIMIT))
        expectError(reply, 401, 'INVALID_CREDENTIALS');
      expectLimited((await guessWrong(user, wrong, 1))[0]!);
      const token = await mfaToken(user);
      expectLimited(await finish(token, await totpNow(secret)));
      expectLimited(await finish(token, recoveryCodes[0]!));
      // A session's step-up by code is the same account's code: refused too, and the recovery code is not spent.
      expectLimited(await user.api.post('/api/v1/auth/step-up', { code: await totpNow(secret) }));
      assert.equal((await user.api.get('/api/v1/auth/mfa')).body.data.recoveryCodesLeft, 10);
      // A passkey cannot be guessed: it still logs in.
      const options = await call(h.app, 'POST', '/api/v1/auth/passkeys/authentication-options', {
        mfaToken: token,
      });
      assert.equal(options.status, 200, options.raw);
      const byPasskey = await call(h.app, 'POST', '/api/v1/auth/login/mfa', {
        mfaToken: token,
        passkey: passkey.assert(options.body.data),
      });
      assert.equal(byPasskey.status, 200, byPasskey.raw);
      assert.equal(byPasskey.body.data.user.id, user.id);
      // Another account is not affected.
      const other = await userWithTotp('bystander');
      const ok = await finish(await mfaToken(other.user), await totpNow(other.secret));
      assert.equal(ok.status, 200, ok.raw);
      if (shared) return; // Redis counts by its own clock; the window's end is proven on the in-process limiter.
      h.clock.advanceSeconds(WINDOW_SECONDS);
      const later = await finish(await mfaToken(user), await totpNow(secret));
      assert.equal(later.status, 200, later.raw);
    });

    test('a right code gives its slot back: only wrong codes count', async () => {
      const { user, secret, wrong } = await userWithTotp('right');
      for (const reply of await guessWrong(user, wrong, CODE_LIMIT - 1))
        expectError(reply, 401, 'INVALID_CREDENTIALS');
      for (let i = 0; i < 3; i += 1) {
        const ok = await finish(await mfaToken(user), await totpNow(secret));
        assert.equal(ok.status, 200, ok.raw);
        h.clock.advanceSeconds(30); // a TOTP code is accepted once: the next login needs the next step's
      }
      expectError((await guessWrong(user, wrong, 1))[0]!, 401, 'INVALID_CREDENTIALS');
      expectLimited((await guessWrong(user, wrong, 1))[0]!);
    });

    test('concurrent guesses over many mfaTokens never pass the limit together', async () => {
      const { user, wrong } = await userWithTotp('racing');
      const tokens = await Promise.all(Array.from({ length: 8 }, () => mfaToken(user)));
      const code = await wrong();
      const replies = await Promise.all(
        Array.from({ length: 32 }, (_, i) => finish(tokens[i % tokens.length]!, code)),
      );
      const judged = replies.filter((r) => r.status === 401);
      const limited = replies.filter((r) => r.status === 429);
      assert.ok(judged.length <= CODE_LIMIT, `${judged.length} codes were judged`);
      assert.equal(judged.length + limited.length, replies.length, replies.map((r) => r.status).join(','));
      for (const reply of limited) expectLimited(reply);
    });

    test('the lock-out bypass: a locked password still earns an mfaToken, but no more code guesses', async () => {
      const { user, secret, wrong } = await userWithTotp('locked');
      for (let i = 0; i < 10; i += 1)
        expectError(await login(user, 'a wrong guess'), 401, 'INVALID_CREDENTIALS');
      expectError(await login(user, 'a wrong guess'), 429, 'RATE_LIMITED');
      // The owner still gets in with the factor while passwords are being guessed...
      const ok = await finish(await mfaToken(user), await totpNow(secret));
      assert.equal(ok.status, 200, ok.raw);
      h.clock.advanceSeconds(30);
      // ...and whoever holds the password gets at most ten code guesses, however many mfaTokens it takes.
      const replies = await guessWrong(user, wrong, CODE_LIMIT + 5);
      assert.deepEqual(
        replies.map((r) => r.status),
        [...Array(CODE_LIMIT).fill(401), ...Array(5).fill(429)],
      );
    });
  });
}
