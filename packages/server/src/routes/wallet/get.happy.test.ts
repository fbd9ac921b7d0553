import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertChecksummed,
  assertIso,
  assertKeys,
  MASTER_WALLET_KEYS,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'wallet_get_happy');
    });
    after(() => h.close());

    test('a new user has an empty master wallet: {id, address, balance, currency, createdAt}', async () => {
      const createdAt = new Date(h.clock.nowMs()).toISOString();
      const user = await signupUser(h.app);
      h.clock.advanceSeconds(10);
      const reply = await user.api.get('/api/v1/wallet');
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body, ['success', 'data']);
      assert.equal(reply.body.success, true);
      const wallet = reply.body.data;
      assertKeys(wallet, MASTER_WALLET_KEYS);
      assert.match(wallet.id, /^wal_/);
      assertChecksummed(wallet.address);
      assert.equal(wallet.balance, '0.000000');
      assert.equal(wallet.currency, 'USDC');
      assertIso(wallet.createdAt);
      assert.equal(wallet.createdAt, createdAt);
    });

    test('the balance renders 6 decimals after deposits, and the wallet stays the same', async () => {
      const user = await signupUser(h.app);
      const first = await user.api.get('/api/v1/wallet');
      for (const amount of ['10.5', '0.000001', '2']) {
        assert.equal((await user.api.post('/api/v1/wallet/sandbox/deposit', { amount })).status, 201);
      }
      const reply = await user.api.get('/api/v1/wallet');
      assert.equal(reply.body.data.balance, '12.500001');
      assert.equal(reply.body.data.id, first.body.data.id);
      assert.equal(reply.body.data.address, first.body.data.address);
      assert.equal(reply.body.data.createdAt, first.body.data.createdAt);
    });

    test('funding an agent wallet lowers the master balance', async () => {
      const user = await signupUser(h.app);
      await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '100' });
      const agent = await user.api.post('/api/v1/agent-wallets', { label: 'a' });
      await user.api.post(`/api/v1/agent-wallets/${agent.body.data.id}/fund`, { amount: '33.333333' });
      const reply = await user.api.get('/api/v1/wallet');
      assert.equal(reply.body.data.balance, '66.666667');
      assert.notEqual(reply.body.data.address, agent.body.data.address);
      assert.notEqual(reply.body.data.id, agent.body.data.id);
    });

    test('a trailing slash is the same route', async () => {
      const user = await signupUser(h.app);
      const reply = await user.api.get('/api/v1/wallet/');
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, MASTER_WALLET_KEYS);
    });
  });
}
