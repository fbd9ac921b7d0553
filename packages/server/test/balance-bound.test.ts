// Balances are bounded (issue 11): past 2^63 micro-units SQLite silently turned a balance into a float and
// PostgreSQL failed every later deposit. No balance passes BALANCE_MAX_MICROS (100 billion USDC); a deposit that
// would is a clear 400 that changes nothing, and everything before it still verifies. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BALANCE_MAX_MICROS } from '../src/domain/money/accounts.ts';
import { formatMicros } from '../src/domain/money.ts';
import { verifyLedger } from '../src/ledger/verify.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, signupUser } from './support/http.ts';

const DEPOSIT_MAX = '1000000000'; // the contract's largest amount
const DEPOSITS_TO_MAX = Number(BALANCE_MAX_MICROS / 1_000_000_000_000_000n);

for (const target of await storeTargets()) {
  describe(`balance bound (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'balance_bound');
    });
    after(() => h.close());

    test(`${DEPOSITS_TO_MAX} largest deposits reach the maximum exactly; one more is a 400 that changes nothing`, async () => {
      const user = await signupUser(h.app);
      for (let i = 0; i < DEPOSITS_TO_MAX; i += 1) {
        const reply = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: DEPOSIT_MAX });
        assert.equal(reply.status, 201, `deposit ${i}: ${reply.raw}`);
      }
      const full = await user.api.get('/api/v1/wallet');
      assert.equal(full.body.data.balance, formatMicros(BALANCE_MAX_MICROS));
      const over = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '0.000001' });
      expectError(over, 400, 'VALIDATION_ERROR');
      assert.match(over.body.error.message, /past the maximum of 100000000000\.000000 USDC/);
      const after = await user.api.get('/api/v1/wallet');
      assert.equal(after.body.data.balance, formatMicros(BALANCE_MAX_MICROS), 'nothing changed');
      assert.deepEqual((await verifyLedger(h.services.store)).problems, []);
      // Spending from the full balance still works.
      const wallet = await user.api.post('/api/v1/agent-wallets', { label: 'a' });
      const funded = await user.api.post(`/api/v1/agent-wallets/${wallet.body.data.id}/fund`, {
        amount: '1',
      });
      assert.equal(funded.status, 200, funded.raw);
    });
  });
}
