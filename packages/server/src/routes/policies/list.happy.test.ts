import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  assertPolicyView,
  createPolicy,
  EXTERNAL,
  policiesUrl,
  policyUrl,
} from '../../../test/support/agent.ts';
import { assertKeys, eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

for (const target of await storeTargets()) {
  describe(`GET /agent-wallets/:walletId/policies happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_list_happy');
    });
    after(() => h.close());

    test('no policies: {items: [], total: 0, page: 1, limit: 20}', async () => {
      const agent = await agentWithKey(h);
      const reply = await agent.user.api.get(policiesUrl(agent.walletId));
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual(reply.body, { success: true, data: { items: [], total: 0, page: 1, limit: 20 } });
    });

    test('active and paused policies, newest first, as they were created', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '7.25' });
      h.clock.advanceSeconds(1);
      const allow = await createPolicy(agent.user, agent.walletId, 'address_allowlist', {
        addresses: [EXTERNAL],
      });
      h.clock.advanceSeconds(1);
      const paused = await createPolicy(agent.user, agent.walletId, 'require_approval_above', {
        amount: '3',
      });
      assert.equal(
        (await agent.user.api.patch(policyUrl(agent.walletId, paused.id), { active: false })).status,
        200,
      );
      const reply = await agent.user.api.get(policiesUrl(agent.walletId));
      assert.equal(reply.status, 200, reply.raw);
      assertKeys(reply.body.data, ['items', 'total', 'page', 'limit']);
      assert.equal(reply.body.data.total, 3);
      const items = reply.body.data.items;
      for (const item of items) assertPolicyView(item);
      assert.deepEqual(
        items.map((p: { id: string; active: boolean }) => [p.id, p.active]),
        [
          [paused.id, false],
          [allow.id, true],
          [cap.id, true],
        ],
      );
      assert.deepEqual(items[2], cap);
      assert.deepEqual(items[1].params, { addresses: [eip55(EXTERNAL)] });
      assert.deepEqual(items[0].params, { amount: '3.000000' });
    });

    test('pagination: page and limit', async () => {
      const agent = await agentWithKey(h);
      const ids: string[] = [];
      for (let i = 1; i <= 5; i += 1) {
        ids.push(
          (await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: String(i) })).id,
        );
      }
      const page2 = await agent.user.api.get(`${policiesUrl(agent.walletId)}?page=2&limit=2`);
      assert.equal(page2.status, 200, page2.raw);
      assert.deepEqual(
        page2.body.data.items.map((p: { id: string }) => p.id),
        [ids[2], ids[1]],
      );
      assert.deepEqual(
        { ...page2.body.data, items: undefined },
        { items: undefined, total: 5, page: 2, limit: 2 },
      );
      const beyond = await agent.user.api.get(`${policiesUrl(agent.walletId)}?page=9&limit=100`);
      assert.deepEqual(beyond.body.data.items, []);
      assert.equal(beyond.body.data.total, 5);
    });
  });
}
