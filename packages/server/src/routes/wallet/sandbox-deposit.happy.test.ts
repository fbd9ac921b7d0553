import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertIso, assertKeys, assertLedgerOk, DEPOSIT_KEYS } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /wallet/sandbox/deposit happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'sandbox_deposit_happy');
    });
    after(() => h.close());

    test('answers 201 with the deposit and the new balance, amounts with 6 decimals', async () => {
      const user = await signupUser(h.app);
      const reply = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '10.5' });
      assert.equal(reply.status, 201, reply.raw);
      assert.equal(reply.body.success, true);
      const deposit = reply.body.data;
      assertKeys(deposit, [...DEPOSIT_KEYS, 'balance']);
      assert.match(deposit.id, /^dep_/);
      assert.equal(deposit.amount, '10.500000');
      assert.equal(deposit.balance, '10.500000');
      assert.equal(deposit.currency, 'USDC');
      assert.equal(deposit.rail, 'sandbox');
      assert.equal(deposit.txHash, null);
      assertIso(deposit.createdAt);
      assert.equal(deposit.createdAt, new Date(h.clock.nowMs()).toISOString());

      const listed = await user.api.get('/api/v1/wallet/deposits');
      const { balance: _balance, ...withoutBalance } = deposit;
      assert.deepEqual(listed.body.data.items, [withoutBalance]);
    });

    test('the smallest and the largest amounts, and the balance adds up exactly', async () => {
      const user = await signupUser(h.app);
      const cases: Array<[string, string, string]> = [
        ['0.000001', '0.000001', '0.000001'],
        ['1000000000', '1000000000.000000', '1000000000.000001'],
        ['1000000000.000000', '1000000000.000000', '2000000000.000001'],
        ['0.1', '0.100000', '2000000000.100001'],
        ['123.456789', '123.456789', '2000000123.556790'],
      ];
      for (const [amount, rendered, balance] of cases) {
        const reply = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount });
        assert.equal(reply.status, 201, reply.raw);
        assert.equal(reply.body.data.amount, rendered);
        assert.equal(reply.body.data.balance, balance);
      }
      assert.equal((await user.api.get('/api/v1/wallet/balance')).body.data.balance, '2000000123.556790');
      await assertLedgerOk(h);
    });

    test('health says the server is on the sandbox rail', async () => {
      const reply = await (await signupUser(h.app)).api.get('/api/v1/health');
      assert.equal(reply.body.data.rail, 'sandbox');
    });
  });
}
