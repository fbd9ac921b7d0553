import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  addAgentWallet,
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  createKey,
  keyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, stepUpWithPassword } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/keys/:keyId/rotate error (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'keys_rotate_error');
    });
    after(() => h.close());

    test('gracePeriodSeconds negative, over 604800, not an integer, or not a number is a 400 naming it', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const gracePeriodSeconds of [-1, 604_801, 1.5, '60', null, true, [60], 1e20]) {
        const reply = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {
          gracePeriodSeconds,
        });
        expectValidation(reply, 'gracePeriodSeconds');
      }
      await assertAgentStateUnchanged(h, state, 'a bad grace');
      toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
    });

    test('unknown body fields (label, scopes, expiresAt) are a 400: the new key copies the old one', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const [field, value] of Object.entries({
        label: 'renamed',
        scopes: ['read', 'write'],
        key: 'x',
      })) {
        expectValidation(
          await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), { [field]: value }),
          field,
        );
      }
      expectError(
        await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), '[]'),
        400,
        'VALIDATION_ERROR',
      );
      await assertAgentStateUnchanged(h, state, 'a bad body');
    });

    test('unknown ids are a 404 NOT_FOUND', async () => {
      const agent = await agentWithKey(h);
      const other = await addAgentWallet(agent.user);
      const state = await agentState(h);
      expectError(await agent.user.api.post(keyUrl(agent.walletId, 'key_nope', 'rotate')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.post(keyUrl('wal_nope', agent.keyId, 'rotate')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.post(keyUrl(other.id, agent.keyId, 'rotate')), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, 'an unknown id');
    });

    test('a key already rotated (in or after its grace) is a 409 INVALID_STATE', async () => {
      const agent = await agentWithKey(h);
      const first = await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate'), {
        gracePeriodSeconds: 600,
      });
      assert.equal(first.status, 201, first.raw);
      let state = await agentState(h);
      expectError(
        await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate')),
        409,
        'INVALID_STATE',
      );
      await assertAgentStateUnchanged(h, state, 'a second rotation');
      h.clock.advanceSeconds(601);
      await stepUpWithPassword(agent.user);
      state = await agentState(h);
      expectError(
        await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate')),
        409,
        'INVALID_STATE',
      );
      await assertAgentStateUnchanged(h, state, 'a rotation after the grace');
    });

    test('a revoked key is a 409 INVALID_STATE', async () => {
      const agent = await agentWithKey(h);
      await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'revoke'));
      const state = await agentState(h);
      expectError(
        await agent.user.api.post(keyUrl(agent.walletId, agent.keyId, 'rotate')),
        409,
        'INVALID_STATE',
      );
      await assertAgentStateUnchanged(h, state, 'rotating a revoked key');
    });

    test('an expired key is a 409 INVALID_STATE', async () => {
      const agent = await agentWithKey(h);
      const expiring = await createKey(agent.user, agent.walletId, {
        label: 'short',
        expiresAt: new Date(h.clock.nowMs() + 60_000).toISOString(),
      });
      h.clock.advanceSeconds(60);
      const state = await agentState(h);
      expectError(
        await agent.user.api.post(keyUrl(agent.walletId, expiring.id, 'rotate')),
        409,
        'INVALID_STATE',
      );
      await assertAgentStateUnchanged(h, state, 'rotating an expired key');
    });
  });
}
