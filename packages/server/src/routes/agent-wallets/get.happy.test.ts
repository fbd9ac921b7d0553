import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAgentWalletShape } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_get_happy');
    });
    after(() => h.close());

    test('answers the wallet as created, then with its current balance and state', async () => {
      const { user, walletId, wallet } = await fundedUser(h.app, '50');
      const first = await user.api.get(`/api/v1/agent-wallets/${walletId}`);
      assert.equal(first.status, 200, first.raw);
      assertAgentWalletShape(first.body.data);
      assert.deepEqual(first.body.data, wallet);

      await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '20.000001' });
      await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '0.000001' });
      const after = await user.api.get(`/api/v1/agent-wallets/${walletId}`);
      assertAgentWalletShape(after.body.data);
      assert.equal(after.body.data.balance, '20.000000');
      assert.equal(after.body.data.heldBalance, '0.000000');
      assert.equal(after.body.data.address, wallet.address);
      assert.equal(after.body.data.createdAt, wallet.createdAt);
    });

    test('a trailing slash is the same route', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const reply = await user.api.get(`/api/v1/agent-wallets/${walletId}/`);
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.data.id, walletId);
    });
  });
}
