import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAgentWalletShape } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_create_happy');
    });
    after(() => h.close());

    test('answers 201 with an empty, unfrozen wallet with its own checksummed address', async () => {
      const user = await signupUser(h.app);
      const now = new Date(h.clock.nowMs()).toISOString();
      const reply = await user.api.post('/api/v1/agent-wallets', { label: 'research agent' });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.success, true);
      const wallet = reply.body.data;
      assertAgentWalletShape(wallet);
      assert.equal(wallet.label, 'research agent');
      assert.equal(wallet.balance, '0.000000');
      assert.equal(wallet.heldBalance, '0.000000');
      assert.equal(wallet.frozen, false);
      assert.equal(wallet.createdAt, now);
      assert.equal(wallet.updatedAt, now);
      const master = await user.api.get('/api/v1/wallet');
      assert.notEqual(wallet.address, master.body.data.address);
      assert.notEqual(wallet.id, master.body.data.id);

      const fetched = await user.api.get(`/api/v1/agent-wallets/${wallet.id}`);
      assert.deepEqual(fetched.body.data, wallet);
    });

    test('labels are trimmed; 1 and 100 characters and unicode are accepted', async () => {
      const user = await signupUser(h.app);
      const cases: Array<[string, string]> = [
        ['  padded  ', 'padded'],
        ['x', 'x'],
        ['L'.repeat(100), 'L'.repeat(100)],
        ['agent 🤖 für Zürich', 'agent 🤖 für Zürich'],
      ];
      for (const [label, stored] of cases) {
        const reply = await user.api.post('/api/v1/agent-wallets', { label });
        assert.equal(reply.status, 201, reply.raw);
        assert.equal(reply.body.data.label, stored);
      }
    });

    test('every wallet gets a distinct id and address; the same label twice is allowed', async () => {
      const user = await signupUser(h.app);
      const ids = new Set<string>();
      const addresses = new Set<string>();
      for (let i = 0; i < 5; i += 1) {
        const reply = await user.api.post('/api/v1/agent-wallets', { label: 'twin' });
        assert.equal(reply.status, 201, reply.raw);
        ids.add(reply.body.data.id);
        addresses.add(reply.body.data.address.toLowerCase());
      }
      assert.equal(ids.size, 5);
      assert.equal(addresses.size, 5);
      assert.equal((await user.api.get('/api/v1/agent-wallets')).body.data.total, 5);
    });
  });
}
