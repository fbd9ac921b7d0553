import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStoreUnchanged, expectValidation, storeState } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, type TestUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`PATCH /agent-wallets/:id errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    let url: string;
    before(async () => {
      h = await startHarness(target.name, 'aw_update_error');
      const funded = await fundedUser(h.app, '10');
      user = funded.user;
      url = `/api/v1/agent-wallets/${funded.walletId}`;
    });
    after(() => h.close());

    test('a missing, empty, blank or 101-character label is 400 naming label; the label is unchanged', async () => {
      const state = await storeState(h);
      expectValidation(await user.api.patch(url, {}), 'label', /required/);
      expectValidation(await user.api.patch(url, { label: '' }), 'label', /empty/);
      expectValidation(await user.api.patch(url, { label: ' \t ' }), 'label', /empty/);
      expectValidation(await user.api.patch(url, { label: 'x'.repeat(101) }), 'label', /100/);
      expectValidation(await user.api.patch(url, { label: 42 }), 'label', /string/);
      expectValidation(await user.api.patch(url, { label: null }), 'label', /string/);
      await assertStoreUnchanged(h, state, 'a refused rename');
      assert.equal((await user.api.get(url)).body.data.label, 'agent one');
    });

    test('a label holding an unpaired surrogate is 400 naming label; the label is unchanged', async () => {
      const state = await storeState(h);
      for (const label of ['bad\ud800', '\udc00x']) {
        expectValidation(await user.api.patch(url, { label }), 'label', /unpaired surrogate/);
      }
      await assertStoreUnchanged(h, state, 'a refused rename');
      assert.equal((await user.api.get(url)).body.data.label, 'agent one');
    });

    test('unknown fields (frozen, balance, address) are 400 naming them; nothing changes', async () => {
      const state = await storeState(h);
      expectValidation(await user.api.patch(url, { label: 'ok', frozen: true }), 'frozen', /unknown field/);
      expectValidation(
        await user.api.patch(url, { label: 'ok', balance: '999' }),
        'balance',
        /unknown field/,
      );
      expectValidation(
        await user.api.patch(url, { address: '0x0000000000000000000000000000000000000001' }),
        'address',
      );
      await assertStoreUnchanged(h, state, 'a refused rename');
    });

    test('an unknown wallet is 404 NOT_FOUND', async () => {
      const state = await storeState(h);
      expectError(await user.api.patch('/api/v1/agent-wallets/wal_nope', { label: 'x' }), 404, 'NOT_FOUND');
      const master = await user.api.get('/api/v1/wallet');
      expectError(
        await user.api.patch(`/api/v1/agent-wallets/${master.body.data.id}`, { label: 'x' }),
        404,
        'NOT_FOUND',
      );
      await assertStoreUnchanged(h, state, 'a rename of an unknown wallet');
    });

    test('malformed JSON, no body, text/plain and 65 KiB are refused', async () => {
      const state = await storeState(h);
      expectError(await user.api.patch(url, '{"label":"x"'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.patch(url), 400, 'VALIDATION_ERROR');
      expectError(
        await user.api.patch(url, '{"label":"x"}', { headers: { 'content-type': 'text/plain' } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await user.api.patch(url, { label: 'x'.repeat(66 * 1024) }), 413, 'PAYLOAD_TOO_LARGE');
      await assertStoreUnchanged(h, state, 'a refused rename');
    });
  });
}
