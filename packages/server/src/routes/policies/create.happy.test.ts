import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  assertPolicyView,
  EXTERNAL,
  EXTERNAL_2,
  expectToolError,
  policiesUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { eip55 } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/policies happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_create_happy');
    });
    after(() => h.close());

    test('every type: 201 {id, walletId, type, params, active: true, createdAt, updatedAt}, amounts at 6 places', async () => {
      const agent = await agentWithKey(h);
      const now = new Date(h.clock.nowMs()).toISOString();
      const cases: Array<[string, unknown, unknown]> = [
        ['spend_cap_per_tx', { limit: '10.5' }, { limit: '10.500000' }],
        ['spend_cap_daily', { limit: '0.000001' }, { limit: '0.000001' }],
        ['spend_cap_total', { limit: '1000000000' }, { limit: '1000000000.000000' }],
        ['require_approval_above', { amount: '25' }, { amount: '25.000000' }],
        ['address_allowlist', { addresses: [EXTERNAL] }, { addresses: [eip55(EXTERNAL)] }],
      ];
      for (const [type, params, expected] of cases) {
        const reply = await agent.user.api.post(policiesUrl(agent.walletId), { type, params });
        assert.equal(reply.status, 201, `${type}: ${reply.raw}`);
        assert.equal(reply.body.success, true);
        const policy = reply.body.data;
        assertPolicyView(policy);
        assert.equal(policy.walletId, agent.walletId);
        assert.equal(policy.type, type);
        assert.deepEqual(policy.params, expected, type);
        assert.equal(policy.active, true);
        assert.equal(policy.createdAt, now);
        assert.equal(policy.updatedAt, now);
      }
    });

    test('allowlist addresses: lower, upper and checksummed forms of one address are one entry, rendered EIP-55', async () => {
      const agent = await agentWithKey(h);
      const reply = await agent.user.api.post(policiesUrl(agent.walletId), {
        type: 'address_allowlist',
        params: {
          addresses: [EXTERNAL, `0x${EXTERNAL.slice(2).toUpperCase()}`, eip55(EXTERNAL), EXTERNAL_2],
        },
      });
      assert.equal(reply.status, 201, reply.raw);
      assert.deepEqual(reply.body.data.params, { addresses: [eip55(EXTERNAL), eip55(EXTERNAL_2)] });
    });

    test('a new policy takes effect on the next payment: per-tx cap (inclusive) and allowlist', async () => {
      const agent = await agentWithKey(h);
      const cap = await agent.user.api.post(policiesUrl(agent.walletId), {
        type: 'spend_cap_per_tx',
        params: { limit: '5' },
      });
      const allow = await agent.user.api.post(policiesUrl(agent.walletId), {
        type: 'address_allowlist',
        params: { addresses: [EXTERNAL] },
      });
      assert.equal(cap.status, 201);
      assert.equal(allow.status, 201);
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '5' }), 'send_payment');
      const denied = await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL_2, amount: '5.000001' });
      expectToolError(denied, 'send_payment', 422, 'POLICY_DENIED');
      assert.deepEqual(
        denied.body.error.violations.map((v: { policyId: string; policyType: string }) => [
          v.policyId,
          v.policyType,
        ]),
        [
          [cap.body.data.id, 'spend_cap_per_tx'],
          [allow.body.data.id, 'address_allowlist'],
        ],
      );
      for (const v of denied.body.error.violations) assert.equal(typeof v.reason, 'string');
      assert.equal(denied.body.data.status, 'rejected');
    });

    test('require_approval_above holds a larger payment as pending; daily and total caps show in check_balance', async () => {
      const agent = await agentWithKey(h);
      await agent.user.api.post(policiesUrl(agent.walletId), {
        type: 'require_approval_above',
        params: { amount: '10' },
      });
      await agent.user.api.post(policiesUrl(agent.walletId), {
        type: 'spend_cap_daily',
        params: { limit: '50' },
      });
      await agent.user.api.post(policiesUrl(agent.walletId), {
        type: 'spend_cap_total',
        params: { limit: '80.25' },
      });
      const small = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '10' }),
        'send_payment',
      );
      assert.equal(small.status, 'completed');
      const large = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '10.5' }),
        'send_payment',
      );
      assert.equal(large.status, 'pending');
      const balance = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.equal(balance.dailyCapRemaining, '29.500000');
      assert.equal(balance.totalCapRemaining, '59.750000');
      assert.equal(balance.heldBalance, '10.500000');
    });
  });
}
