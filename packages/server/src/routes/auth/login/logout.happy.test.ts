import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertKeys } from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /auth/logout happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'logout_happy');
    });
    after(() => h.close());

    test('answers {loggedOut: true} and the token is refused on every route from then on', async () => {
      const user = await signupUser(h.app);
      const wallet = await user.api.post('/api/v1/agent-wallets', { label: 'before logout' });
      assert.equal(wallet.status, 201, wallet.raw);
      const reply = await user.api.post('/api/v1/auth/logout');
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, { success: true, data: { loggedOut: true } });
      for (const url of [
        '/api/v1/auth/me',
        '/api/v1/wallet',
        '/api/v1/agent-wallets',
        `/api/v1/agent-wallets/${wallet.body.data.id}`,
      ]) {
        expectError(await user.api.get(url), 401, 'UNAUTHORIZED');
      }
      expectError(
        await user.api.post('/api/v1/agent-wallets', { label: 'after logout' }),
        401,
        'UNAUTHORIZED',
      );
      expectError(await user.api.post('/api/v1/auth/logout'), 401, 'UNAUTHORIZED');
    });

    test('accepts an empty JSON body and {} as well as no body', async () => {
      for (const send of [
        (token: string) =>
          call(h.app, 'POST', '/api/v1/auth/logout', '', {
            token,
            headers: { 'content-type': 'application/json' },
          }),
        (token: string) => call(h.app, 'POST', '/api/v1/auth/logout', {}, { token }),
        (token: string) => call(h.app, 'POST', '/api/v1/auth/logout', undefined, { token }),
      ]) {
        const user = await signupUser(h.app);
        const reply = await send(user.token);
        assert.equal(reply.status, 200, reply.raw);
        assertKeys(reply.body.data, ['loggedOut']);
        expectError(await user.api.get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
      }
    });

    test('ends only this session: another login of the same user keeps working', async () => {
      const user = await signupUser(h.app);
      const other = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: user.email,
        password: user.password,
      });
      assert.equal(other.status, 200);
      const reply = await user.api.post('/api/v1/auth/logout', {});
      assert.equal(reply.status, 200, reply.raw);
      expectError(await user.api.get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
      const stillIn = await call(h.app, 'GET', '/api/v1/auth/me', undefined, {
        token: other.body.data.token,
      });
      assert.equal(stillIn.status, 200, stillIn.raw);
      // Logging in again after a logout gives a working token.
      const again = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: user.email,
        password: user.password,
      });
      const me = await call(h.app, 'GET', '/api/v1/auth/me', undefined, { token: again.body.data.token });
      assert.equal(me.status, 200, me.raw);
    });
  });
}
