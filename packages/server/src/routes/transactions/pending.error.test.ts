import { after, before, describe, test } from 'node:test';
import { agentWithKey, pendingUrl } from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/transactions/pending error (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tx_pending_error');
    });
    after(() => h.close());

    test('bad pagination or an unknown query parameter (status) is a 400 naming it', async () => {
      const agent = await agentWithKey(h);
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=5.5', 'limit'],
        ['page=0', 'page'],
        ['page=01', 'page'],
        ['status=completed', 'status'],
      ] as const) {
        expectValidation(await agent.user.api.get(`${pendingUrl(agent.walletId)}?${query}`), field);
      }
    });

    test('an unknown wallet or the master wallet is a 404 NOT_FOUND', async () => {
      const agent = await agentWithKey(h);
      const master = await agent.user.api.get('/api/v1/wallet');
      expectError(await agent.user.api.get(pendingUrl('wal_nope')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.get(pendingUrl(master.body.data.id)), 404, 'NOT_FOUND');
    });
  });
}
