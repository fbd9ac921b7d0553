import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAgentWalletShape } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`PATCH /agent-wallets/:id happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_update_happy');
    });
    after(() => h.close());

    test('renames the wallet: 200 with the full view, updatedAt moves, nothing else changes', async () => {
      const { user, walletId, wallet } = await fundedUser(h.app, '10');
      await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '4' });
      h.clock.advanceSeconds(120);
      const reply = await user.api.patch(`/api/v1/agent-wallets/${walletId}`, { label: '  renamed agent ' });
      assert.equal(reply.status, 200, reply.raw);
      assertAgentWalletShape(reply.body.data);
      assert.equal(reply.body.data.label, 'renamed agent');
      assert.equal(reply.body.data.updatedAt, new Date(h.clock.nowMs()).toISOString());
      assert.equal(reply.body.data.createdAt, wallet.createdAt);
      assert.equal(reply.body.data.address, wallet.address);
      assert.equal(reply.body.data.balance, '4.000000');
      assert.equal(reply.body.data.frozen, false);
      const fetched = await user.api.get(`/api/v1/agent-wallets/${walletId}`);
      assert.deepEqual(fetched.body.data, reply.body.data);
    });

    test('a frozen wallet can be renamed and stays frozen; 100 characters are accepted', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      assert.equal((await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {})).status, 200);
      const reply = await user.api.patch(`/api/v1/agent-wallets/${walletId}`, { label: 'n'.repeat(100) });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.label, 'n'.repeat(100));
      assert.equal(reply.body.data.frozen, true);
    });

    test('renaming to the same label answers 200', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const reply = await user.api.patch(`/api/v1/agent-wallets/${walletId}`, { label: 'agent one' });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.label, 'agent one');
    });
  });
}
