import { after, before, describe, test } from 'node:test';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:id/transactions/:txId errors (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_get_error');
    });
    after(() => h.close());

    test('an unknown transaction is 404 NOT_FOUND', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      expectError(
        await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/tx_nope`),
        404,
        'NOT_FOUND',
      );
    });

    test("a transaction of the user's other wallet, asked through this wallet, is 404", async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const second = await user.api.post('/api/v1/agent-wallets', { label: 'second' });
      const fund = await user.api.post(`/api/v1/agent-wallets/${second.body.data.id}/fund`, { amount: '1' });
      expectError(
        await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/${fund.body.data.transaction.id}`),
        404,
        'NOT_FOUND',
      );
    });

    test('an unknown wallet is 404 even with a real transaction id', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const fund = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '1' });
      expectError(
        await user.api.get(`/api/v1/agent-wallets/wal_nope/transactions/${fund.body.data.transaction.id}`),
        404,
        'NOT_FOUND',
      );
    });

    test('an id over 64 characters is 400 naming transactionId', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      expectValidation(
        await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/${'t'.repeat(65)}`),
        'transactionId',
      );
    });
  });
}
