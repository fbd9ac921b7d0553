import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { fundedUser, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /wallet/balance happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'wallet_balance_happy');
    });
    after(() => h.close());

    test('a new user: exactly {balance: "0.000000", currency: "USDC"}', async () => {
      const user = await signupUser(h.app);
      const reply = await user.api.get('/api/v1/wallet/balance');
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, { success: true, data: { balance: '0.000000', currency: 'USDC' } });
    });

    test('follows deposits, funding and withdrawals to the micro-unit', async () => {
      const { user, walletId } = await fundedUser(h.app, '1000000000');
      const read = async () => (await user.api.get('/api/v1/wallet/balance')).body.data.balance;
      assert.equal(await read(), '1000000000.000000');
      await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '0.000001' });
      assert.equal(await read(), '1000000000.000001');
      await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '999999999.999999' });
      assert.equal(await read(), '0.000002');
      await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '0.1' });
      const reply = await user.api.get('/api/v1/wallet/balance');
      assertKeys(reply.body.data, ['balance', 'currency']);
      assert.equal(reply.body.data.balance, '0.100002');
    });
  });
}
