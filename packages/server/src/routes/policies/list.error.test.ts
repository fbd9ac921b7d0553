import { after, before, describe, test } from 'node:test';
import { agentWithKey, policiesUrl } from '../../../test/support/agent.ts';
import { expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/policies error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_list_error');
    });
    after(() => h.close());

    test('bad pagination or an unknown query parameter is a 400 naming it', async () => {
      const agent = await agentWithKey(h);
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=ten', 'limit'],
        ['page=0', 'page'],
        ['page=-2', 'page'],
        ['type=spend_cap_daily', 'type'],
      ] as const) {
        expectValidation(await agent.user.api.get(`${policiesUrl(agent.walletId)}?${query}`), field);
      }
    });

    test('an unknown wallet or the master wallet is a 404 NOT_FOUND', async () => {
      const agent = await agentWithKey(h);
      const master = await agent.user.api.get('/api/v1/wallet');
      expectError(await agent.user.api.get(policiesUrl('wal_nope')), 404, 'NOT_FOUND');
      expectError(await agent.user.api.get(policiesUrl(master.body.data.id)), 404, 'NOT_FOUND');
    });
  });
}
