// Passkeys on the server side (issue 26, contract section 8): options need step-up and are single use, a forged
// or unanswered registration changes nothing, another user's passkey is a 404, a login's passkey options need a
// live mfaToken. The browser side (a real passkey through Chromium's virtual authenticator) is in the dashboard's
// end-to-end test.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { relyingParty } from '../src/services/identity/passkeys.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError, signupUser } from './support/http.ts';

const FAKE_REGISTRATION = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  clientExtensionResults: {},
  response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' },
};

// Known before any test is registered: with --test-force-exit, a file whose first tests finish while it still
// awaits this would be ended before its suites ran.
const targets = await storeTargets();

test('the relying party: PUBLIC_URL’s host and origin, else localhost on the port', () => {
  assert.deepEqual(relyingParty(undefined, 8787), { id: 'localhost', origin: 'http://localhost:8787' });
  assert.deepEqual(relyingParty('https://wallet.example.com', 8787), {
    id: 'wallet.example.com',
    origin: 'https://wallet.example.com',
  });
  assert.deepEqual(relyingParty('http://localhost:9999', 8787), {
    id: 'localhost',
    origin: 'http://localhost:9999',
  });
});

for (const target of targets) {
  describe(`passkeys on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'passkeys');
    });
    after(() => h?.close());

    test('registration options: for a recent session only, with this relying party and a fresh challenge', async () => {
      const user = await signupUser(h.app, 'passkey');
      const first = await user.api.post('/api/v1/auth/passkeys/registration-options');
      assert.equal(first.status, 200, first.raw);
      assert.equal(first.body.data.rp.id, 'localhost');
      assert.equal(first.body.data.user.name, user.email);
      const second = await user.api.post('/api/v1/auth/passkeys/registration-options');
      assert.notEqual(second.body.data.challenge, first.body.data.challenge);
      h.clock.advanceSeconds(301);
      expectError(await user.api.post('/api/v1/auth/passkeys/registration-options'), 403, 'STEP_UP_REQUIRED');
    });

    test('a registration that does not verify is 400, the challenge is gone, and nothing is registered', async () => {
      const user = await signupUser(h.app, 'forged');
      await user.api.post('/api/v1/auth/passkeys/registration-options');
      expectError(
        await user.api.post('/api/v1/auth/passkeys', { label: 'forged', response: FAKE_REGISTRATION }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await user.api.post('/api/v1/auth/passkeys', { label: 'again', response: FAKE_REGISTRATION }),
        409,
        'INVALID_STATE',
      );
      assert.deepEqual((await user.api.get('/api/v1/auth/passkeys')).body.data.items, []);
      assert.equal((await user.api.get('/api/v1/auth/mfa')).body.data.passkeys, 0);
      expectError(
        await user.api.post('/api/v1/auth/passkeys', {
          label: 'x',
          response: { ...FAKE_REGISTRATION, type: 'other' },
        }),
        400,
        'VALIDATION_ERROR',
      );
    });

    test('another user’s passkey is 404; step-up options without a passkey are 409; login options need an mfaToken', async () => {
      const user = await signupUser(h.app, 'owner');
      await h.services.store.db
        .insertInto('passkeys')
        .values({
          id: 'pky_test_owner',
          user_id: user.id,
          credential_id: 'Y3JlZA',
          public_key: 'cHVi',
          sign_count: 0n,
          transports_json: '[]',
          label: 'laptop',
          created_at_ms: BigInt(h.clock.nowMs()),
          last_used_at_ms: null,
        })
        .execute();
      const stranger = await signupUser(h.app, 'stranger');
      expectError(await stranger.api.delete('/api/v1/auth/passkeys/pky_test_owner'), 404, 'NOT_FOUND');
      expectError(await stranger.api.post('/api/v1/auth/step-up/passkey-options'), 409, 'INVALID_STATE');
      const options = await user.api.post('/api/v1/auth/step-up/passkey-options');
      assert.equal(options.status, 200, options.raw);
      assert.deepEqual(
        options.body.data.allowCredentials.map((c: { id: string }) => c.id),
        ['Y3JlZA'],
      );
      expectError(
        await call(h.app, 'POST', '/api/v1/auth/passkeys/authentication-options', {
          mfaToken: 'mfa_unknown',
        }),
        401,
        'UNAUTHORIZED',
      );
      // With a passkey the login asks for the factor, and the options allow that passkey.
      const login = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: user.email,
        password: user.password,
      });
      expectError(login, 401, 'MFA_REQUIRED');
      assert.deepEqual(login.body.error.methods, ['passkey']);
      const loginOptions = await call(h.app, 'POST', '/api/v1/auth/passkeys/authentication-options', {
        mfaToken: login.body.error.mfaToken,
      });
      assert.equal(loginOptions.status, 200, loginOptions.raw);
      assert.equal(loginOptions.body.data.rpId, 'localhost');
      // A forged answer is a wrong factor: 401, counted, and the challenge is spent.
      const forged = {
        id: 'Y3JlZA',
        rawId: 'Y3JlZA',
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' },
      };
      expectError(
        await call(h.app, 'POST', '/api/v1/auth/login/mfa', {
          mfaToken: login.body.error.mfaToken,
          passkey: forged,
        }),
        401,
        'INVALID_CREDENTIALS',
      );
      const removed = await user.api.delete('/api/v1/auth/passkeys/pky_test_owner');
      assert.equal(removed.status, 200, removed.raw);
      assert.deepEqual((await user.api.get('/api/v1/auth/passkeys')).body.data.items, []);
      const events = (await user.api.get('/api/v1/auth/security-events')).body.data.items;
      assert.deepEqual(events[0].detail, { factor: 'passkey', label: 'laptop' });
    });
  });
}
