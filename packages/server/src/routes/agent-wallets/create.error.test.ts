import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertStoreUnchanged, expectValidation, storeState } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

const CREATE = '/api/v1/agent-wallets';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let user: TestUser;
    before(async () => {
      h = await startHarness(target.name, 'aw_create_error');
      user = await signupUser(h.app);
    });
    after(() => h.close());

    test('a missing label is 400 naming label; no wallet is created', async () => {
      const state = await storeState(h);
      expectValidation(await user.api.post(CREATE, {}), 'label', /required/);
      await assertStoreUnchanged(h, state, 'a refused creation');
    });

    test('an empty, blank or over-long (101) label is 400 naming label', async () => {
      const state = await storeState(h);
      expectValidation(await user.api.post(CREATE, { label: '' }), 'label', /empty/);
      expectValidation(await user.api.post(CREATE, { label: '   ' }), 'label', /empty/);
      expectValidation(await user.api.post(CREATE, { label: 'L'.repeat(101) }), 'label', /100/);
      await assertStoreUnchanged(h, state, 'a refused creation');
    });

    test('a label holding an unpaired surrogate is 400 naming label, on every store; nothing is stored', async () => {
      const state = await storeState(h);
      for (const label of ['bad\ud800', '\udc00', 'a\udfff\ud800b', 'pair 😀 then \ud83d']) {
        expectValidation(await user.api.post(CREATE, { label }), 'label', /valid Unicode/);
      }
      // The escape as a client writes it by hand, too.
      expectValidation(await user.api.post(CREATE, '{"label":"bad\\uD800"}'), 'label', /unpaired surrogate/);
      await assertStoreUnchanged(h, state, 'a refused creation');
      const ok = await user.api.post(CREATE, { label: 'pair \ud83d\ude00 ok' });
      assert.equal(ok.status, 201, ok.raw);
      assert.equal(ok.body.data.label, 'pair 😀 ok');
    });

    test('a label of the wrong type is 400 naming label', async () => {
      const state = await storeState(h);
      for (const label of [5, null, true, ['a'], { name: 'a' }]) {
        expectValidation(await user.api.post(CREATE, { label }), 'label', /string/);
      }
      await assertStoreUnchanged(h, state, 'a refused creation');
    });

    test('an unknown field is 400 naming it', async () => {
      const state = await storeState(h);
      expectValidation(
        await user.api.post(CREATE, { label: 'a', balance: '100' }),
        'balance',
        /unknown field/,
      );
      expectValidation(await user.api.post(CREATE, { label: 'a', frozen: true }), 'frozen', /unknown field/);
      await assertStoreUnchanged(h, state, 'a refused creation');
    });

    test('malformed JSON, no body, a non-object, text/plain and 65 KiB are refused', async () => {
      const state = await storeState(h);
      expectError(await user.api.post(CREATE, '{"label":'), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(CREATE), 400, 'VALIDATION_ERROR');
      expectError(await user.api.post(CREATE, '["a"]'), 400, 'VALIDATION_ERROR');
      expectError(
        await user.api.post(CREATE, '{"label":"a"}', { headers: { 'content-type': 'text/plain' } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await user.api.post(CREATE, { label: 'x'.repeat(70_000) }), 413, 'PAYLOAD_TOO_LARGE');
      await assertStoreUnchanged(h, state, 'a refused creation');
    });
  });
}
