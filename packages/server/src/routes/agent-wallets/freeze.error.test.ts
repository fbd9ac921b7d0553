import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStoreUnchanged, expectValidation, storeState } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, fundedUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/freeze errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let walletId: string;
    before(async () => {
      h = await startHarness(target.name, 'aw_freeze_error');
      ({ user, walletId } = await fundedUser(h.app, '10'));
    });
    after(() => h.close());

    test('an unknown wallet or the master wallet is 404 NOT_FOUND', async () => {
      const state = await storeState(h);
      expectError(await user.api.post('/api/v1/agent-wallets/wal_nope/freeze', {}), 404, 'NOT_FOUND');
      const master = await user.api.get('/api/v1/wallet');
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${master.body.data.id}/freeze`, {}),
        404,
        'NOT_FOUND',
      );
      await assertStoreUnchanged(h, state, 'freezing an unknown wallet');
    });

    test('a body with a field is 400 naming it, and the wallet is not frozen', async () => {
      const state = await storeState(h);
      expectValidation(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, { frozen: true }),
        'frozen',
      );
      expectValidation(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, { reason: 'suspicious' }),
        'reason',
        /unknown field/,
      );
      await assertStoreUnchanged(h, state, 'a refused freeze');
      assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}`)).body.data.frozen, false);
    });

    test('malformed JSON, a non-object body and text/plain are 400; the wallet is not frozen', async () => {
      const state = await storeState(h);
      const url = `/api/v1/agent-wallets/${walletId}/freeze`;
      expectError(await user.api.post(url, '{'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(url, '[]'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(url, 'true'), 400, 'VALIDATION_ERROR');
      expectError(
        await call(h.app, 'POST', url, 'freeze', {
          token: user.token,
          headers: { 'content-type': 'text/plain' },
        }),
        400,
        'VALIDATION_ERROR',
      );
      await assertStoreUnchanged(h, state, 'a refused freeze');
    });

    test('GET on /freeze is a method the path lacks: 405 envelope with Allow: POST', async () => {
      const reply = await user.api.get(`/api/v1/agent-wallets/${walletId}/freeze`);
      expectError(reply, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(reply.headers.allow, 'POST');
    });
  });
}
