// Calendar budgets and the breaker (issue 29, contract section 10): spend_cap_period resets at the period's
// start in the owner's timezone (a payment at the boundary's first millisecond counts in the new period) and
// holds exactly under concurrency; auto_freeze freezes the wallet at exactly its count under a burst of denied
// payments on two instances, once, and later payments meet WALLET_FROZEN until the owner unfreezes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningServer } from '../src/server.ts';
import { agentWithKey, createPolicy, EXTERNAL, toolOk } from './support/agent.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError } from './support/http.ts';

const targets = await storeTargets();

for (const target of targets) {
  describe(`breakers and calendar budgets on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    let second: RunningServer;
    before(async () => {
      h = await startHarness(target.name, 'breakers', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      second = await secondInstance(h);
    });
    after(async () => {
      await second?.close();
      await h?.close();
    });

    const pay = (key: string, amount: string, app = h.app) =>
      call(
        app,
        'POST',
        '/mcp/v1/tools/send_payment',
        { params: { toAddress: EXTERNAL, amount } },
        { token: key },
      );

    test('a monthly budget in Europe/Berlin resets at local midnight on the 1st, to the millisecond', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_period', {
        limit: '10',
        period: 'month',
        timezone: 'Europe/Berlin',
      });
      // 2027-01-31 22:59:59.999 UTC is 23:59:59.999 on January 31 in Berlin (UTC+1).
      h.clock.setMs(Date.UTC(2027, 0, 31, 22, 59, 59, 999));
      assert.equal(toolOk(await pay(agent.key, '8'), 'send_payment').status, 'completed');
      const over = await pay(agent.key, '3');
      expectError(over, 422, 'POLICY_DENIED');
      assert.equal(over.body.error.violations[0].policyType, 'spend_cap_period');
      assert.match(over.body.error.violations[0].reason, /monthly budget .*resets 2027-01-31T23:00:00\.000Z/);
      assert.deepEqual(await periodRoom(agent.key), ['2.000000', '2027-01-31T23:00:00.000Z']);
      h.clock.setMs(Date.UTC(2027, 0, 31, 23, 0, 0, 0)); // February 1, 00:00:00.000 in Berlin
      assert.deepEqual(await periodRoom(agent.key), ['10.000000', '2027-02-28T23:00:00.000Z']);
      assert.equal(toolOk(await pay(agent.key, '3'), 'send_payment').status, 'completed');
      expectError(await pay(agent.key, '7.000001'), 422, 'POLICY_DENIED');
      assert.equal(toolOk(await pay(agent.key, '7'), 'send_payment').status, 'completed');
      assert.deepEqual(await periodRoom(agent.key), ['0.000000', '2027-02-28T23:00:00.000Z']);
    });

    /** check_balance's calendar-budget room and reset, checked against check_payment's: one answer. */
    async function periodRoom(key: string): Promise<[string | null, string | null]> {
      const balance = toolOk(
        await call(h.app, 'POST', '/mcp/v1/tools/check_balance', {}, { token: key }),
        'check_balance',
      );
      const check = toolOk(
        await call(
          h.app,
          'POST',
          '/mcp/v1/tools/check_payment',
          { params: { toAddress: EXTERNAL, amount: '1' } },
          { token: key },
        ),
        'check_payment',
      );
      assert.deepEqual(
        [check.periodCapRemaining, check.periodCapResetsAt],
        [balance.periodCapRemaining, balance.periodCapResetsAt],
      );
      // Without a calendar budget the answer holds the contract's fields only (no nulls added).
      assert.equal('periodCapRemaining' in balance, balance.periodCapResetsAt !== undefined);
      return [balance.periodCapRemaining ?? null, balance.periodCapResetsAt ?? null];
    }

    test('check_balance shows the tightest of several calendar budgets, null with none, and is never stale', async () => {
      h.clock.setMs(Date.UTC(2027, 4, 12, 12, 0, 0)); // Wednesday, May 12 2027
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      assert.deepEqual(await periodRoom(agent.key), [null, null]);
      await createPolicy(agent.user, agent.walletId, 'spend_cap_period', {
        limit: '30',
        period: 'month',
        timezone: 'UTC',
      });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_period', {
        limit: '20',
        period: 'week',
        timezone: 'Asia/Tokyo',
      });
      assert.deepEqual(await periodRoom(agent.key), ['20.000000', '2027-05-16T15:00:00.000Z']);
      assert.equal(toolOk(await pay(agent.key, '15'), 'send_payment').status, 'completed');
      assert.deepEqual(await periodRoom(agent.key), ['5.000000', '2027-05-16T15:00:00.000Z']);
      // A new week in Tokyo: the week has 20 again, so the month's 15 left is now the tightest.
      h.clock.setMs(Date.UTC(2027, 4, 16, 15, 0, 0));
      assert.deepEqual(await periodRoom(agent.key), ['15.000000', '2027-06-01T00:00:00.000Z']);
    });

    test('a daily budget in New York spans the 23-hour day of the spring change', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_period', {
        limit: '5',
        period: 'day',
        timezone: 'America/New_York',
      });
      // 2027-03-14 is 23 hours long in New York: it starts 05:00 UTC and ends 04:00 UTC on the 15th.
      h.clock.setMs(Date.UTC(2027, 2, 14, 5, 0, 0));
      assert.equal(toolOk(await pay(agent.key, '5'), 'send_payment').status, 'completed');
      h.clock.setMs(Date.UTC(2027, 2, 15, 3, 59, 59));
      expectError(await pay(agent.key, '1'), 422, 'POLICY_DENIED');
      h.clock.setMs(Date.UTC(2027, 2, 15, 4, 0, 0));
      assert.equal(toolOk(await pay(agent.key, '1'), 'send_payment').status, 'completed');
    });

    test('concurrent payments on two instances never pass a weekly budget', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      await createPolicy(agent.user, agent.walletId, 'spend_cap_period', {
        limit: '10',
        period: 'week',
        timezone: 'UTC',
      });
      h.clock.setMs(Date.UTC(2027, 5, 9, 12)); // a Wednesday
      const replies = await Promise.all(
        Array.from({ length: 24 }, (_, i) => pay(agent.key, '1', i % 2 === 0 ? h.app : second.app)),
      );
      const completed = replies.filter((r) => r.status === 200 && r.body.data.status === 'completed');
      assert.equal(completed.length, 10, replies.map((r) => r.status).join());
      assert.ok(replies.every((r) => r.status === 200 || r.body.error.code === 'POLICY_DENIED'));
    });

    test('auto_freeze: a burst of denied payments on two instances freezes the wallet once, at the count', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      const hook = await agent.user.api.post('/api/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['wallet.frozen'],
      });
      assert.equal(hook.status, 201, hook.raw);
      await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '1' });
      await createPolicy(agent.user, agent.walletId, 'auto_freeze', { denials: 3, window: '1h' });
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => pay(agent.key, '5', i % 2 === 0 ? h.app : second.app)),
      );
      const codes = replies.map((r) => r.body.error?.code);
      assert.equal(codes.filter((c) => c === 'POLICY_DENIED').length, 3, codes.join());
      assert.equal(codes.filter((c) => c === 'WALLET_FROZEN').length, 9, codes.join());
      const wallet = await agent.user.api.get(`/api/v1/agent-wallets/${agent.walletId}`);
      assert.equal(wallet.body.data.frozen, true);
      const events = await h.services.store.db
        .selectFrom('webhook_events')
        .select(['type', 'data_json'])
        .where('type', '=', 'wallet.frozen')
        .execute();
      const mine = events.filter((e) => e.data_json.includes(agent.walletId));
      assert.equal(mine.length, 1, 'wallet.frozen once');
      const data = JSON.parse(mine[0]!.data_json);
      assert.equal(data.reason, 'auto_freeze');
      assert.equal(data.denials, 3);
      // Later payments, even allowed ones, meet WALLET_FROZEN; the owner unfreezes and the count starts again.
      expectError(await pay(agent.key, '0.5'), 403, 'WALLET_FROZEN');
      const unfrozen = await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/unfreeze`);
      assert.equal(unfrozen.status, 200, unfrozen.raw);
      assert.equal(toolOk(await pay(agent.key, '0.5'), 'send_payment').status, 'completed');
      expectError(await pay(agent.key, '5'), 422, 'POLICY_DENIED');
      expectError(await pay(agent.key, '5'), 422, 'POLICY_DENIED');
      assert.equal(toolOk(await pay(agent.key, '0.5'), 'send_payment').status, 'completed');
      expectError(await pay(agent.key, '5'), 422, 'POLICY_DENIED');
      expectError(await pay(agent.key, '0.5'), 403, 'WALLET_FROZEN');
    });

    test('auto_freeze counts insufficient balance too, and only inside its window', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '1' });
      await createPolicy(agent.user, agent.walletId, 'auto_freeze', { denials: 2, window: '1h' });
      expectError(await pay(agent.key, '5'), 422, 'INSUFFICIENT_BALANCE');
      h.clock.advanceMs(61 * 60 * 1000);
      expectError(await pay(agent.key, '5'), 422, 'INSUFFICIENT_BALANCE');
      assert.equal(toolOk(await pay(agent.key, '0.5'), 'send_payment').status, 'completed');
      expectError(await pay(agent.key, '5'), 422, 'INSUFFICIENT_BALANCE');
      expectError(await pay(agent.key, '0.1'), 403, 'WALLET_FROZEN');
    });

    test('the policies validate: period and timezone, denials 1 to 1,000', async () => {
      const agent = await agentWithKey(h, { fund: '0' });
      const url = `/api/v1/agent-wallets/${agent.walletId}/policies`;
      for (const params of [
        { limit: '1', period: 'year', timezone: 'UTC' },
        { limit: '1', period: 'day', timezone: 'Mars/Olympus' },
        { limit: '1', period: 'day' },
      ]) {
        expectError(
          await agent.user.api.post(url, { type: 'spend_cap_period', params }),
          400,
          'VALIDATION_ERROR',
        );
      }
      for (const params of [{ denials: 0, window: '1h' }, { denials: 1001, window: '1h' }, { denials: 3 }]) {
        expectError(await agent.user.api.post(url, { type: 'auto_freeze', params }), 400, 'VALIDATION_ERROR');
      }
    });
  });
}
