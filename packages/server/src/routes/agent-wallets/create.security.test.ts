import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertStoreUnchanged,
  expectExpiredTokenRejected,
  expectRejectsBadCredentials,
  expectValidation,
  storeState,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

const CREATE = '/api/v1/agent-wallets';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_create_security');
    });
    after(() => h.close());

    test('every bad credential is 401 and creates nothing', async () => {
      await expectRejectsBadCredentials(h, await signupUser(h.app), await signupUser(h.app), 'POST', CREATE, {
        label: 'x',
      });
    });

    test('an expired token is 401 and creates nothing', async () => {
      await expectExpiredTokenRejected(h, await signupUser(h.app), 'POST', CREATE, { label: 'x' });
    });

    test('no mass assignment: a wallet cannot be created for another user, funded or pre-frozen', async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      const state = await storeState(h);
      for (const [field, value] of Object.entries({
        userId: b.id,
        user_id: b.id,
        id: 'wal_chosen',
        address: '0x52908400098527886E0F7030069857D2E4169EE7',
        heldBalance: '5',
        kind: 'master',
      })) {
        expectValidation(await a.api.post(CREATE, { label: 'grab', [field]: value }), field, /unknown field/);
      }
      await assertStoreUnchanged(h, state, 'a mass-assignment attempt');
      assert.equal((await b.api.get(CREATE)).body.data.total, 0);
    });

    test('a wallet belongs to its creator only', async () => {
      const a = await signupUser(h.app);
      const b = await signupUser(h.app);
      const created = await a.api.post(CREATE, { label: 'mine' });
      assert.equal(created.status, 201);
      assert.equal((await b.api.get(CREATE)).body.data.total, 0);
      assert.equal((await b.api.get(`${CREATE}/${created.body.data.id}`)).status, 404);
    });

    test('a label with a NUL byte, control or bidi characters is a 400 naming label; nothing is created', async () => {
      const user = await signupUser(h.app);
      const state = await storeState(h);
      for (const label of [
        'nul\u0000byte',
        'bell\u0007',
        'line\nbreak',
        'rtl \u202eevil',
        'zero\u200bwidth',
      ]) {
        expectValidation(await user.api.post(CREATE, { label }), 'label', /one line of plain text/);
      }
      await assertStoreUnchanged(h, state, 'a refused label');
    });

    test('a label is stored as text, never interpreted', async () => {
      const user = await signupUser(h.app);
      const label = `'); drop table wallets; -- <script>alert(1)</script>`;
      const reply = await user.api.post(CREATE, { label });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.data.label, label);
      assert.equal((await user.api.get(`${CREATE}/${reply.body.data.id}`)).body.data.label, label);
    });
  });
}
