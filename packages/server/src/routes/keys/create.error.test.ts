import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentState,
  assertAgentStateUnchanged,
  expectNulHandled,
  keysUrl,
  NUL_TEXT,
} from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_create_error');
    });
    after(() => h.close());

    test('a bad label is a 400 naming label, and creates nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const state = await agentState(h);
      for (const body of [
        {},
        { label: '' },
        { label: '   ' },
        { label: 'x'.repeat(101) },
        { label: 42 },
        { label: null },
        { label: ['a'] },
      ]) {
        expectValidation(await user.api.post(keysUrl(walletId), body), 'label');
      }
      await assertAgentStateUnchanged(h, state, 'a bad label');
    });

    test('a label holding an unpaired surrogate is a 400 naming label, and creates nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const state = await agentState(h);
      for (const label of ['bad\ud800', '\udfff']) {
        expectValidation(await user.api.post(keysUrl(walletId), { label }), 'label', /unpaired surrogate/);
      }
      await assertAgentStateUnchanged(h, state, 'a label that is not Unicode');
    });

    test('bad scopes are a 400 naming scopes, and create nothing', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const state = await agentState(h);
      for (const scopes of [
        ['admin'],
        [],
        'read,admin',
        ['read', 'read'],
        'read,read',
        ['read', 'write', 'read'],
        'admin',
        '',
        'READ',
        ['Read'],
        5,
        null,
        {},
        [['read']],
        { read: true },
      ]) {
        const reply = await user.api.post(keysUrl(walletId), { label: 'k', scopes });
        expectValidation(reply, 'scopes');
      }
      await assertAgentStateUnchanged(h, state, 'bad scopes');
    });

    test('expiresAt in the past, now, or not an ISO-8601 date-time is a 400 naming expiresAt', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const state = await agentState(h);
      const now = h.clock.nowMs();
      for (const expiresAt of [
        new Date(now - 1000).toISOString(),
        new Date(now).toISOString(),
        '2000-01-01T00:00:00Z',
        'tomorrow',
        '2026-13-01T00:00:00Z',
        '2026-11-05',
        '',
        now + 86_400_000,
        null,
      ]) {
        const reply = await user.api.post(keysUrl(walletId), { label: 'k', expiresAt });
        expectValidation(reply, 'expiresAt');
      }
      await assertAgentStateUnchanged(h, state, 'a bad expiresAt');
    });

    test('unknown body fields are refused (no mass assignment)', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const state = await agentState(h);
      for (const [field, value] of Object.entries({
        walletId: 'wal_other',
        key: `svc_live_${'a'.repeat(43)}`,
        id: 'key_chosen',
        prefix: 'svc_live_aaaaaa',
        revokedAt: null,
        status: 'active',
      })) {
        expectValidation(
          await user.api.post(keysUrl(walletId), { label: 'k', [field]: value }),
          field,
          /unknown/,
        );
      }
      await assertAgentStateUnchanged(h, state, 'a mass-assignment attempt');
    });

    test('a body that is not a JSON object is a 400', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const state = await agentState(h);
      for (const body of ['[]', '"label"', '42', '{"label":', 'null']) {
        expectError(await user.api.post(keysUrl(walletId), body), 400, 'VALIDATION_ERROR');
      }
      await assertAgentStateUnchanged(h, state, 'a malformed body');
    });

    test('an unknown wallet, or the master wallet, is a 404 NOT_FOUND', async () => {
      const { user } = await fundedUser(h.app, '10');
      const master = await user.api.get('/api/v1/wallet');
      const state = await agentState(h);
      for (const id of ['wal_doesnotexist', master.body.data.id, 'x'.repeat(64)]) {
        expectError(await user.api.post(keysUrl(id), { label: 'k' }), 404, 'NOT_FOUND');
      }
      expectValidation(await user.api.post(keysUrl('x'.repeat(65)), { label: 'k' }), 'walletId');
      await assertAgentStateUnchanged(h, state, 'an unknown wallet');
    });

    test('a label with a NUL character: a 400 naming label or kept verbatim, on every store, never a 500', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const reply = await user.api.post(keysUrl(walletId), { label: NUL_TEXT });
      if (expectNulHandled(reply, 'label')) assert.equal(reply.body.data.label, NUL_TEXT);
    });
  });
}
