import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'wallet_get_error');
    });
    after(() => h.close());

    test('without a token: 401 UNAUTHORIZED', async () => {
      expectError(await call(h.app, 'GET', '/api/v1/wallet'), 401, 'UNAUTHORIZED');
    });

    test('methods the route does not have are 405 envelopes', async () => {
      const user = await signupUser(h.app);
      expectError(await user.api.post('/api/v1/wallet', {}), 405, 'METHOD_NOT_ALLOWED');
      expectError(await user.api.patch('/api/v1/wallet', { balance: '1000' }), 405, 'METHOD_NOT_ALLOWED');
      expectError(await user.api.delete('/api/v1/wallet'), 405, 'METHOD_NOT_ALLOWED');
    });

    test('an unknown path below /wallet is a 404 envelope', async () => {
      const user = await signupUser(h.app);
      expectError(await user.api.get('/api/v1/wallet/nothing-here'), 404, 'NOT_FOUND');
    });
  });
}
