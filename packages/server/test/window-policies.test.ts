// The policies of issue 13 end to end, on both stores: rolling budgets, payment counts, blocklists, caps per
// recipient and allowed hours — each at its exact boundary, across window edges with the injectable clock, every
// bad input a clear 400, and racing payments that can never pass a budget together.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyLedger } from '../src/ledger/verify.ts';
import { addPolicy, balances, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser } from './support/http.ts';

const OTHER = `0x${'cd'.repeat(20)}`;
const HOUR_S = 3600;

for (const target of await storeTargets()) {
  describe(`window policies (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'window-policies');
    });
    after(() => h.close());

    async function agent(amount = '1000') {
      const setup = await fundedUser(h.app, '10000');
      await fund(setup.user, setup.walletId, amount);
      return { ...setup, key: await createKey(setup.user, setup.walletId) };
    }
    const pay = (key: string, amount: string, toAddress = OUTSIDE_ADDRESS) =>
      tool(h.app, key, 'send_payment', { toAddress, amount });

    test('spend_cap_window: the budget itself passes, one micro-unit more is denied, held counts', async () => {
      const { user, walletId, key } = await agent();
      const policyId = await addPolicy(user, walletId, 'spend_cap_window', { limit: '50', window: '1h' });
      assert.equal((await pay(key, '20')).status, 200);
      const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '20' });
      assert.equal(held.status, 200);
      const denied = await pay(key, '10.000001');
      expectError(denied, 422, 'POLICY_DENIED');
      assert.deepEqual(denied.body.error.violations, [
        {
          policyId,
          policyType: 'spend_cap_window',
          reason: 'would pass the 1h spending cap (50.000001, limit 50.000000)',
          limit: '50.000000',
          attempted: '50.000001',
          window: '1h',
        },
      ]);
      assert.equal((await pay(key, '10')).status, 200);
      // Exactly one hour after the first payment it leaves the window (exact to the millisecond).
      h.clock.advanceSeconds(HOUR_S);
      h.clock.advanceMs(-1);
      expectError(await pay(key, '0.000001'), 422, 'POLICY_DENIED');
      h.clock.advanceMs(1);
      assert.equal((await pay(key, '20')).status, 200);
    });

    test('tx_count_cap counts payments of any amount in its window, held ones too', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'tx_count_cap', { count: 2, window: '24h' });
      assert.equal((await pay(key, '0.000001')).status, 200);
      assert.equal(
        (await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '1' })).status,
        200,
      );
      const denied = await pay(key, '0.000001');
      expectError(denied, 422, 'POLICY_DENIED');
      assert.equal(denied.body.error.violations[0].limit, 2);
      assert.equal(denied.body.error.violations[0].attempted, 3);
      h.clock.advanceSeconds(24 * HOUR_S);
      assert.equal((await pay(key, '5')).status, 200);
    });

    test('address_blocklist denies exactly the listed recipients, case-insensitively', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'address_blocklist', {
        addresses: [OTHER.toUpperCase().replace('0X', '0x')],
      });
      const denied = await pay(key, '1', OTHER);
      expectError(denied, 422, 'POLICY_DENIED');
      assert.equal(denied.body.error.violations[0].attempted, OTHER);
      assert.equal((await pay(key, '1', OUTSIDE_ADDRESS)).status, 200);
    });

    test('recipient_cap counts each recipient on its own', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'recipient_cap', { limit: '10', window: '7d' });
      assert.equal((await pay(key, '10', OUTSIDE_ADDRESS)).status, 200);
      expectError(await pay(key, '0.000001', OUTSIDE_ADDRESS), 422, 'POLICY_DENIED');
      assert.equal((await pay(key, '10', OTHER)).status, 200, 'another recipient has its own budget');
      h.clock.advanceSeconds(7 * 24 * HOUR_S);
      assert.equal((await pay(key, '10', OUTSIDE_ADDRESS)).status, 200);
    });

    test('time_window: payments only inside the allowed hours of the owner’s timezone', async () => {
      const { user, walletId, key } = await agent();
      // Forward to the next Sunday 12:00 UTC (13:00 in Berlin, CET in November).
      const WEEK_MS = 7 * 24 * HOUR_S * 1000;
      const sundayNoonMs = Date.UTC(2026, 10, 1, 12);
      h.clock.setMs(sundayNoonMs + Math.ceil((h.clock.nowMs() - sundayNoonMs) / WEEK_MS) * WEEK_MS);
      await addPolicy(user, walletId, 'time_window', {
        days: ['mon', 'tue', 'wed', 'thu', 'fri'],
        start: '09:00',
        end: '17:00',
        timezone: 'Europe/Berlin',
      });
      const weekend = await pay(key, '1');
      expectError(weekend, 422, 'POLICY_DENIED');
      assert.match(weekend.body.error.violations[0].reason, /outside the allowed hours/);
      assert.equal(weekend.body.error.violations[0].limit, 'mon,tue,wed,thu,fri 09:00-17:00 Europe/Berlin');
      h.clock.advanceSeconds(24 * HOUR_S - 4 * HOUR_S); // Monday 08:00 UTC = 09:00 Berlin
      assert.equal((await pay(key, '1')).status, 200);
      h.clock.advanceSeconds(8 * HOUR_S); // 17:00 Berlin: the end is exclusive
      expectError(await pay(key, '1'), 422, 'POLICY_DENIED');
    });

    test('a denial lists every violated policy, and the approval threshold applies only when nothing denies', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'address_blocklist', { addresses: [OUTSIDE_ADDRESS] });
      await addPolicy(user, walletId, 'spend_cap_window', { limit: '5', window: '24h' });
      await addPolicy(user, walletId, 'require_approval_above', { amount: '1' });
      const denied = await pay(key, '6');
      expectError(denied, 422, 'POLICY_DENIED');
      assert.deepEqual(denied.body.error.violations.map((v: { policyType: string }) => v.policyType).sort(), [
        'address_blocklist',
        'spend_cap_window',
      ]);
      const pending = await pay(key, '2', OTHER);
      assert.equal(pending.body.data.status, 'pending');
    });

    test('every bad input is a 400 that names what is wrong, and stores nothing', async () => {
      const { user, walletId } = await agent();
      const cases: Array<[string, unknown, RegExp]> = [
        ['spend_cap_window', { limit: '5', window: '2h' }, /window must be one of "1h", "24h", "7d", "30d"/],
        ['spend_cap_window', { limit: '5' }, /params\.window/],
        ['tx_count_cap', { count: 0, window: '1h' }, /params\.count/],
        ['tx_count_cap', { count: 1.5, window: '1h' }, /params\.count/],
        ['tx_count_cap', { count: '3', window: '1h' }, /params\.count/],
        ['recipient_cap', { limit: '-1', window: '1h' }, /params\.limit/],
        ['address_blocklist', { addresses: [] }, /params\.addresses/],
        ['address_blocklist', { addresses: Array.from({ length: 1001 }, () => OTHER) }, /params\.addresses/],
        ['address_blocklist', { addresses: ['0x123'] }, /params\.addresses/],
        [
          'time_window',
          { days: [], start: '09:00', end: '17:00', timezone: 'UTC' },
          /params\.days must have at least 1/,
        ],
        [
          'time_window',
          { days: ['mon', 'funday'], start: '09:00', end: '17:00', timezone: 'UTC' },
          /params\.days\.1 must be one of "mon"/,
        ],
        [
          'time_window',
          { days: ['mon'], start: '24:00', end: '17:00', timezone: 'UTC' },
          /params\.start.*HH:MM/,
        ],
        [
          'time_window',
          { days: ['mon'], start: '09:00', end: '17:60', timezone: 'UTC' },
          /params\.end.*HH:MM/,
        ],
        [
          'time_window',
          { days: ['mon'], start: '09:00', end: '09:00', timezone: 'UTC' },
          /start and end must differ/,
        ],
        [
          'time_window',
          { days: ['mon'], start: '09:00', end: '17:00', timezone: 'Mars/Base' },
          /IANA timezone/,
        ],
        ['time_window', { days: ['mon'], start: '09:00', end: '17:00', timezone: 'UTC', extra: 1 }, /params/],
      ];
      for (const [type, params, message] of cases) {
        const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/policies`, { type, params });
        expectError(reply, 400, 'VALIDATION_ERROR');
        assert.match(reply.body.error.message, message, `${type} ${JSON.stringify(params).slice(0, 80)}`);
      }
      const list = await user.api.get(`/api/v1/agent-wallets/${walletId}/policies`);
      assert.equal(list.body.data.total, 0);
    });

    // Two instances share a database only on PostgreSQL (SQLite is one process's file).
    if (target.name === 'postgres') {
      test('two instances on one database: racing payments still never pass the budget', async () => {
        const second = await secondInstance(h);
        try {
          const { user, walletId, key } = await agent();
          await addPolicy(user, walletId, 'spend_cap_window', { limit: '7', window: '24h' });
          await addPolicy(user, walletId, 'tx_count_cap', { count: 5, window: '24h' });
          const replies = await Promise.all(
            Array.from({ length: 24 }, (_, i) =>
              tool(i % 2 === 0 ? h.app : second.app, key, 'send_payment', {
                toAddress: OUTSIDE_ADDRESS,
                amount: '1.5',
              }),
            ),
          );
          assert.equal(replies.filter((r) => r.status === 200).length, 4, '4 × 1.5 = 6 ≤ 7 < 7.5');
          assert.deepEqual(await balances(h.app, key), { balance: '994.000000', heldBalance: '0.000000' });
        } finally {
          await second.close();
        }
      });
    }

    test('racing payments never pass a window budget or a count cap together', async () => {
      const budget = await agent();
      await addPolicy(budget.user, budget.walletId, 'spend_cap_window', { limit: '10', window: '30d' });
      const counted = await agent();
      await addPolicy(counted.user, counted.walletId, 'tx_count_cap', { count: 3, window: '1h' });
      const [budgetReplies, countReplies] = await Promise.all([
        Promise.all(Array.from({ length: 20 }, () => pay(budget.key, '1'))),
        Promise.all(Array.from({ length: 20 }, () => pay(counted.key, '1'))),
      ]);
      assert.equal(budgetReplies.filter((r) => r.status === 200).length, 10);
      assert.equal(countReplies.filter((r) => r.status === 200).length, 3);
      for (const r of [...budgetReplies, ...countReplies]) assert.ok([200, 422].includes(r.status), r.raw);
      assert.deepEqual(await balances(h.app, budget.key), { balance: '990.000000', heldBalance: '0.000000' });
      const report = await verifyLedger(h.services.store);
      assert.ok(report.ok, report.problems.join('\n'));
    });
  });
}
