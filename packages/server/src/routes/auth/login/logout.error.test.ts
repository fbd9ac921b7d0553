import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectValidation } from '../../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /auth/logout errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'logout_error');
    });
    after(() => h.close());

    test('without a token: 401 UNAUTHORIZED', async () => {
      expectError(await call(h.app, 'POST', '/api/v1/auth/logout'), 401, 'UNAUTHORIZED');
    });

    test('a body with a field is 400 naming it, and the session stays alive', async () => {
      const user = await signupUser(h.app);
      expectValidation(
        await user.api.post('/api/v1/auth/logout', { everywhere: true }),
        'everywhere',
        /unknown field/,
      );
      const me = await user.api.get('/api/v1/auth/me');
      assert.equal(me.status, 200, 'a refused logout ended the session');
    });

    test('malformed JSON and a non-object body are 400, and the session stays alive', async () => {
      const user = await signupUser(h.app);
      expectError(await user.api.post('/api/v1/auth/logout', '{"x":'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post('/api/v1/auth/logout', '[]'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post('/api/v1/auth/logout', '"bye"'), 400, 'VALIDATION_ERROR');
      const me = await user.api.get('/api/v1/auth/me');
      assert.equal(me.status, 200, 'a refused logout ended the session');
    });

    test('logging out twice: the second is 401', async () => {
      const user = await signupUser(h.app);
      assert.equal((await user.api.post('/api/v1/auth/logout')).status, 200);
      expectError(await user.api.post('/api/v1/auth/logout'), 401, 'UNAUTHORIZED');
    });

    test('GET /auth/logout is a method the path lacks: 405 envelope, and the session stays alive', async () => {
      const user = await signupUser(h.app);
      expectError(await user.api.get('/api/v1/auth/logout'), 405, 'METHOD_NOT_ALLOWED');
      assert.equal((await user.api.get('/api/v1/auth/me')).status, 200);
    });
  });
}
