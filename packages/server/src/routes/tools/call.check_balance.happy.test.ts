import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  agentWithKey,
  BALANCE_KEYS,
  createPolicy,
  EXTERNAL,
  holdPayment,
  policyUrl,
  tool,
  toolOk,
} from '../../../test/support/agent.ts';
import { assertChecksummed, assertKeys } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /mcp/v1/tools/check_balance happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'tool_balance_happy');
    });
    after(() => h.close());

    test('{walletId, address, balance, heldBalance, currency, frozen, dailyCapRemaining, totalCapRemaining}', async () => {
      const agent = await agentWithKey(h, { fund: '12.345678' });
      const data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assertKeys(data, BALANCE_KEYS);
      assert.deepEqual(data, {
        walletId: agent.walletId,
        address: agent.address,
        balance: '12.345678',
        heldBalance: '0.000000',
        currency: 'USDC',
        frozen: false,
        dailyCapRemaining: null,
        totalCapRemaining: null,
      });
      assertChecksummed(data.address);
    });

    test('a read-only key may check the balance; {params: {}} and no body at all work too', async () => {
      const agent = await agentWithKey(h, { scopes: 'read' });
      const expected = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual(toolOk(await tool(h, agent.key, 'check_balance', {}), 'check_balance'), expected);
      assert.deepEqual(
        toolOk(
          await call(h.app, 'POST', '/mcp/v1/tools/check_balance', undefined, { token: agent.key }),
          'check_balance',
        ),
        expected,
      );
    });

    test('payments and holds show: balance is spendable now, heldBalance is set aside', async () => {
      const agent = await agentWithKey(h);
      toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '10.5' }),
        'send_payment',
      );
      await holdPayment(h, agent, '20');
      const data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.equal(data.balance, '69.500000');
      assert.equal(data.heldBalance, '20.000000');
    });

    test('caps are numbers with daily/total policies: completed and held spending count, never below 0', async () => {
      const agent = await agentWithKey(h);
      const daily = await createPolicy(agent.user, agent.walletId, 'spend_cap_daily', { limit: '50' });
      const dailyTight = await createPolicy(agent.user, agent.walletId, 'spend_cap_daily', { limit: '40' });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_total', { limit: '45' });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '30' });
      let data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual([data.dailyCapRemaining, data.totalCapRemaining], ['40.000000', '45.000000']);
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '15' }), 'send_payment');
      await holdPayment(h, agent, '10');
      data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual([data.dailyCapRemaining, data.totalCapRemaining], ['15.000000', '20.000000']);
      // request_approval is not gated by the caps: the held amount may take the room below zero, shown as 0.
      await holdPayment(h, agent, '25');
      data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual([data.dailyCapRemaining, data.totalCapRemaining], ['0.000000', '0.000000']);
      // The daily window rolls after 24 h; the holds still count toward the total until they expire (72 h).
      h.clock.advanceSeconds(24 * 3600 + 1);
      data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual([data.dailyCapRemaining, data.totalCapRemaining], ['40.000000', '0.000000']);
      h.clock.advanceSeconds(48 * 3600);
      await h.services.approvals.expireDue(); // the background sweep may have run first
      data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.deepEqual([data.dailyCapRemaining, data.totalCapRemaining], ['40.000000', '30.000000']);
      // A paused cap is no cap: null again.
      await agent.user.api.patch(policyUrl(agent.walletId, daily.id), { active: false });
      await agent.user.api.patch(policyUrl(agent.walletId, dailyTight.id), { active: false });
      assert.equal(
        toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').dailyCapRemaining,
        null,
      );
    });

    test('frozen is true on a frozen wallet, and the read still works', async () => {
      const agent = await agentWithKey(h);
      assert.equal((await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/freeze`)).status, 200);
      const data = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance');
      assert.equal(data.frozen, true);
      assert.equal(data.balance, '100.000000');
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/unfreeze`);
      assert.equal(toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').frozen, false);
    });
  });
}
