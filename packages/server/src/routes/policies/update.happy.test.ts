import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  assertPolicyView,
  createPolicy,
  EXTERNAL,
  EXTERNAL_2,
  expectToolError,
  policyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

for (const target of await storeTargets()) {
  describe(`PATCH /agent-wallets/:walletId/policies/:policyId happy (${target.name})`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_update_happy');
    });
    after(() => h.close());

    test('new params: 200 with the normalised params and a new updatedAt; payments see them at once', async () => {
      const agent = await agentWithKey(h);
      const policy = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '10' });
      h.clock.advanceSeconds(5);
      const reply = await agent.user.api.patch(policyUrl(agent.walletId, policy.id), {
        params: { limit: '2.5' },
      });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assertPolicyView(reply.body.data);
      assert.deepEqual(reply.body.data, {
        ...policy,
        params: { limit: '2.500000' },
        updatedAt: new Date(h.clock.nowMs()).toISOString(),
      });
      expectToolError(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '2.500001' }),
        'send_payment',
        422,
        'POLICY_DENIED',
      );
      toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '2.5' }),
        'send_payment',
      );
    });

    test('every type takes new params of its own shape', async () => {
      const agent = await agentWithKey(h);
      const cases: Array<[string, unknown, unknown, unknown]> = [
        ['spend_cap_daily', { limit: '1' }, { limit: '99.9' }, { limit: '99.900000' }],
        ['spend_cap_total', { limit: '1' }, { limit: '0.000001' }, { limit: '0.000001' }],
        ['require_approval_above', { amount: '1' }, { amount: '12' }, { amount: '12.000000' }],
        [
          'address_allowlist',
          { addresses: [EXTERNAL] },
          { addresses: [EXTERNAL_2.toUpperCase().replace('0X', '0x'), EXTERNAL] },
          { addresses: [eip55(EXTERNAL_2), eip55(EXTERNAL)] },
        ],
      ];
      for (const [type, initial, change, expected] of cases) {
        const policy = await createPolicy(agent.user, agent.walletId, type, initial);
        const reply = await agent.user.api.patch(policyUrl(agent.walletId, policy.id), { params: change });
        assert.equal(reply.status, 200, `${type}: ${reply.raw}`);
        assert.deepEqual(reply.body.data.params, expected, type);
        assert.equal(reply.body.data.type, type);
      }
    });

    test('active: false pauses the policy (payments are no longer checked); active: true resumes it', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const approval = await createPolicy(agent.user, agent.walletId, 'require_approval_above', {
        amount: '0.5',
      });
      const daily = await createPolicy(agent.user, agent.walletId, 'spend_cap_daily', { limit: '30' });
      for (const p of [cap, approval, daily]) {
        const paused = await agent.user.api.patch(policyUrl(agent.walletId, p.id), { active: false });
        assert.equal(paused.status, 200, paused.raw);
        assert.equal(paused.body.data.active, false);
        assert.deepEqual(paused.body.data.params, p.params);
      }
      const paid = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '5' }),
        'send_payment',
      );
      assert.equal(paid.status, 'completed');
      assert.equal(
        toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').dailyCapRemaining,
        null,
      );

      const resumed = await agent.user.api.patch(policyUrl(agent.walletId, cap.id), { active: true });
      assert.equal(resumed.body.data.active, true);
      expectToolError(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '5' }),
        'send_payment',
        422,
        'POLICY_DENIED',
      );
      await agent.user.api.patch(policyUrl(agent.walletId, daily.id), { active: true });
      assert.equal(
        toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').dailyCapRemaining,
        '25.000000',
      );
    });

    test('params and active together', async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      const reply = await agent.user.api.patch(policyUrl(agent.walletId, cap.id), {
        params: { limit: '3' },
        active: false,
      });
      assert.equal(reply.status, 200, reply.raw);
      assert.deepEqual([reply.body.data.params, reply.body.data.active], [{ limit: '3.000000' }, false]);
    });
  });
}
