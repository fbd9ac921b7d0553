// Alerts (issue 29, contract section 10): balance_below and cap_used fire once per crossing — never once per
// payment, also under concurrent payments on two instances — and re-arm when the balance is back up, the rolling
// window moves on or a calendar period begins. Each firing is a webhook event (balance.low, budget.threshold).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningServer } from '../src/server.ts';
import { type Agent, agentWithKey, createPolicy, EXTERNAL, toolOk } from './support/agent.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError } from './support/http.ts';

const targets = await storeTargets();

for (const target of targets) {
  describe(`alerts on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    let second: RunningServer;
    before(async () => {
      h = await startHarness(target.name, 'alerts', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      second = await secondInstance(h);
    });
    after(async () => {
      await second?.close();
      await h?.close();
    });

    const pay = (agent: Agent, amount: string, app = h.app) =>
      call(
        app,
        'POST',
        '/mcp/v1/tools/send_payment',
        { params: { toAddress: EXTERNAL, amount } },
        { token: agent.key },
      );

    /** A webhook endpoint for the alert events, so they are stored (events nobody listens to are not). */
    async function listen(agent: Agent): Promise<void> {
      const hook = await agent.user.api.post('/api/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['balance.low', 'budget.threshold'],
      });
      assert.equal(hook.status, 201, hook.raw);
    }

    async function fired(type: string, walletId: string): Promise<Array<Record<string, unknown>>> {
      const rows = await h.services.store.db
        .selectFrom('webhook_events')
        .select(['data_json'])
        .where('type', '=', type)
        .orderBy('created_at_ms')
        .orderBy('id')
        .execute();
      return rows.map((r) => JSON.parse(r.data_json)).filter((d) => d.walletId === walletId);
    }

    test('balance_below fires once when the balance falls below, and again only after it was back up', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      await listen(agent);
      const created = await agent.user.api.post('/api/v1/alerts', {
        type: 'balance_below',
        walletId: agent.walletId,
        params: { amount: '50' },
      });
      assert.equal(created.status, 201, created.raw);
      assert.deepEqual(created.body.data.params, { amount: '50.000000' });
      toolOk(await pay(agent, '30'), 'send_payment'); // 70
      assert.equal((await fired('balance.low', agent.walletId)).length, 0);
      toolOk(await pay(agent, '30'), 'send_payment'); // 40: below
      toolOk(await pay(agent, '5'), 'send_payment'); // 35: still below, no second event
      const first = await fired('balance.low', agent.walletId);
      assert.equal(first.length, 1);
      assert.deepEqual(first[0], {
        alertId: created.body.data.id,
        walletId: agent.walletId,
        balance: '40.000000',
        threshold: '50.000000',
      });
      const listed = await agent.user.api.get(`/api/v1/alerts?walletId=${agent.walletId}`);
      assert.equal(listed.body.data.items[0].firing, true);
      const funded = await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/fund`, {
        amount: '100',
      });
      assert.equal(funded.status, 200, funded.raw); // 135: re-armed, nothing sent
      assert.equal((await fired('balance.low', agent.walletId)).length, 1);
      toolOk(await pay(agent, '90'), 'send_payment'); // 45: below again
      assert.equal((await fired('balance.low', agent.walletId)).length, 2);
    });

    test('balance_below on the master wallet (no walletId) fires when funding agents drains it', async () => {
      const agent = await agentWithKey(h, { master: '100', fund: '0' });
      await listen(agent);
      const created = await agent.user.api.post('/api/v1/alerts', {
        type: 'balance_below',
        params: { amount: '50' },
      });
      assert.equal(created.status, 201, created.raw);
      const master = (await agent.user.api.get('/api/v1/wallet')).body.data.id;
      assert.equal(created.body.data.walletId, master);
      await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/fund`, { amount: '60' });
      const events = await fired('balance.low', master);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.balance, '40.000000');
    });

    test('cap_used fires once under a burst of payments on two instances, at the share of the cap', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '500' });
      await listen(agent);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_daily', { limit: '100' });
      const created = await agent.user.api.post('/api/v1/alerts', {
        type: 'cap_used',
        walletId: agent.walletId,
        params: { percent: 80 },
      });
      assert.equal(created.status, 201, created.raw);
      const replies = await Promise.all(
        Array.from({ length: 14 }, (_, i) => pay(agent, '10', i % 2 === 0 ? h.app : second.app)),
      );
      assert.equal(replies.filter((r) => r.status === 200).length, 10);
      const events = await fired('budget.threshold', agent.walletId);
      assert.equal(events.length, 1, JSON.stringify(events));
      assert.equal(events[0]!.policyId, cap.id);
      assert.equal(events[0]!.percent, 80);
      assert.equal(events[0]!.limit, '100.000000');
      assert.ok(['80.000000', '90.000000', '100.000000'].includes(events[0]!.spent as string));
      // Still at the share: a later batch (a denied payment) fires nothing more.
      expectError(await pay(agent, '10'), 422, 'POLICY_DENIED');
      assert.equal((await fired('budget.threshold', agent.walletId)).length, 1);
      // The rolling day moves on: spending falls under the share, the alert re-arms, and fires at the next crossing.
      h.clock.advanceMs(25 * 60 * 60 * 1000);
      toolOk(await pay(agent, '10'), 'send_payment');
      assert.equal((await fired('budget.threshold', agent.walletId)).length, 1);
      for (let i = 0; i < 7; i += 1) toolOk(await pay(agent, '10'), 'send_payment');
      assert.equal((await fired('budget.threshold', agent.walletId)).length, 2);
    });

    test('cap_used on a calendar budget re-arms when the next period begins', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      await listen(agent);
      await createPolicy(agent.user, agent.walletId, 'spend_cap_period', {
        limit: '10',
        period: 'month',
        timezone: 'UTC',
      });
      await agent.user.api.post('/api/v1/alerts', {
        type: 'cap_used',
        walletId: agent.walletId,
        params: { percent: 50 },
      });
      h.clock.setMs(Date.UTC(2028, 4, 20));
      toolOk(await pay(agent, '6'), 'send_payment');
      toolOk(await pay(agent, '1'), 'send_payment');
      assert.equal((await fired('budget.threshold', agent.walletId)).length, 1);
      h.clock.setMs(Date.UTC(2028, 5, 1));
      toolOk(await pay(agent, '4'), 'send_payment');
      assert.equal((await fired('budget.threshold', agent.walletId)).length, 1);
      toolOk(await pay(agent, '1'), 'send_payment');
      assert.equal((await fired('budget.threshold', agent.walletId)).length, 2);
    });

    test('alerts validate their params and wallet; deleting one stops it', async () => {
      const agent = await agentWithKey(h, { master: '100', fund: '10' });
      const post = (body: unknown) => agent.user.api.post('/api/v1/alerts', body);
      expectError(await post({ type: 'cap_used', params: { percent: 50 } }), 400, 'VALIDATION_ERROR');
      expectError(
        await post({ type: 'cap_used', walletId: agent.walletId, params: { percent: 0 } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await post({ type: 'cap_used', walletId: agent.walletId, params: { amount: '1' } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await post({ type: 'balance_below', params: { amount: '1', percent: 5 } }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await post({ type: 'balance_below', walletId: 'wal_nope', params: { amount: '1' } }),
        404,
        'NOT_FOUND',
      );
      const other = await agentWithKey(h, { fund: '0' });
      expectError(
        await post({ type: 'balance_below', walletId: other.walletId, params: { amount: '1' } }),
        404,
        'NOT_FOUND',
      );
      const made = await post({ type: 'balance_below', walletId: agent.walletId, params: { amount: '5' } });
      const gone = await agent.user.api.delete(`/api/v1/alerts/${made.body.data.id}`);
      assert.equal(gone.status, 200, gone.raw);
      expectError(await agent.user.api.delete(`/api/v1/alerts/${made.body.data.id}`), 404, 'NOT_FOUND');
    });
  });
}
