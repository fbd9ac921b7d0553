import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness, storeTargets } from '../../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /auth/me errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'me_error');
    });
    after(() => h.close());

    test('without a token: 401 UNAUTHORIZED envelope', async () => {
      expectError(await call(h.app, 'GET', '/api/v1/auth/me'), 401, 'UNAUTHORIZED');
    });

    test('a malformed Authorization header: 401', async () => {
      for (const authorization of ['Bearer', 'Bearer ', 'Token abc', 'bearer', 'Bearer a b']) {
        expectError(
          await call(h.app, 'GET', '/api/v1/auth/me', undefined, { headers: { authorization } }),
          401,
          'UNAUTHORIZED',
        );
      }
    });

    test('other methods on /auth/me are 405 envelopes (Allow: GET, HEAD)', async () => {
      const user = await signupUser(h.app);
      expectError(await user.api.post('/api/v1/auth/me', {}), 405, 'METHOD_NOT_ALLOWED');
      expectError(await user.api.delete('/api/v1/auth/me'), 405, 'METHOD_NOT_ALLOWED');
    });
  });
}
