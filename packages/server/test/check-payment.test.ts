// check_payment and the owner's policy simulation: a dry run that agrees with send_payment (same violations,
// same approval decision) on randomized policies and payments, and that stores, holds and claims nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { addPolicy, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { assertStoreUnchanged, storeState } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser, signupUser } from './support/http.ts';

const OTHER = `0x${'cd'.repeat(20)}`;
const ADDRESSES = [OUTSIDE_ADDRESS, OTHER];

const policyArb = fc.oneof(
  fc.record({
    type: fc.constant('spend_cap_per_tx'),
    params: fc.record({ limit: fc.constantFrom('3', '5', '8') }),
  }),
  fc.record({
    type: fc.constant('spend_cap_daily'),
    params: fc.record({ limit: fc.constantFrom('6', '12') }),
  }),
  fc.record({
    type: fc.constant('spend_cap_window'),
    params: fc.record({ limit: fc.constantFrom('7', '10'), window: fc.constantFrom('1h', '7d') }),
  }),
  fc.record({
    type: fc.constant('tx_count_cap'),
    params: fc.record({ count: fc.integer({ min: 1, max: 4 }), window: fc.constantFrom('1h', '30d') }),
  }),
  fc.record({
    type: fc.constant('address_blocklist'),
    params: fc.record({ addresses: fc.constant([OTHER]) }),
  }),
  fc.record({
    type: fc.constant('recipient_cap'),
    params: fc.record({ limit: fc.constantFrom('4', '9'), window: fc.constant('24h') }),
  }),
  fc.record({
    type: fc.constant('require_approval_above'),
    params: fc.record({ amount: fc.constantFrom('2', '4') }),
  }),
);
const paymentArb = fc.record({
  amount: fc.constantFrom('1', '2.5', '4', '6'),
  to: fc.constantFrom(...ADDRESSES),
});

const ids = (violations: Array<{ policyId: string }>) => violations.map((v) => v.policyId).sort();

for (const target of await storeTargets()) {
  describe(`check_payment (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'check-payment');
    });
    after(() => h.close());

    async function agent(amount: string) {
      const setup = await fundedUser(h.app, '10000');
      await fund(setup.user, setup.walletId, amount);
      return { ...setup, key: await createKey(setup.user, setup.walletId) };
    }

    test('agrees with send_payment on randomized policies and payments (fast-check)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(policyArb, { maxLength: 3 }),
          fc.array(paymentArb, { minLength: 1, maxLength: 5 }),
          fc.constantFrom('8', '20'),
          async (policies, payments, balance) => {
            const { user, walletId, key } = await agent(balance);
            for (const p of policies) await addPolicy(user, walletId, p.type, p.params);
            for (const payment of payments) {
              const params = { toAddress: payment.to, amount: payment.amount };
              const check = (await tool(h.app, key, 'check_payment', params)).body.data;
              const sent = await tool(h.app, key, 'send_payment', params);
              const status = sent.status === 200 ? sent.body.data.status : null;
              assert.equal(
                check.allowed,
                status === 'completed' || status === 'pending',
                JSON.stringify({ check, sent: sent.body }),
              );
              assert.equal(check.requiresApproval, status === 'pending');
              const code = sent.status === 200 ? null : sent.body.error.code;
              if (code === 'POLICY_DENIED')
                assert.deepEqual(ids(check.violations), ids(sent.body.error.violations));
              else assert.deepEqual(check.violations, []);
              assert.equal(check.refusal?.code ?? null, code === 'INSUFFICIENT_BALANCE' ? code : null);
              if (status === 'completed') {
                const after = (await tool(h.app, key, 'check_balance')).body.data.balance;
                assert.equal(check.balanceAfter, after);
              }
            }
          },
        ),
        { numRuns: 15 },
      );
    });

    test('nothing is stored, held or claimed: the whole store is unchanged', async () => {
      const { user, walletId, key } = await agent('100');
      await addPolicy(user, walletId, 'require_approval_above', { amount: '1' });
      const before = await storeState(h);
      const answer = await tool(h.app, key, 'check_payment', { toAddress: OUTSIDE_ADDRESS, amount: '50' });
      assert.equal(answer.status, 200, answer.raw);
      assert.equal(answer.body.tool, 'check_payment');
      assert.deepEqual(answer.body.data, {
        allowed: true,
        requiresApproval: true,
        violations: [],
        balanceAfter: '50.000000',
        dailyCapRemaining: null,
        totalCapRemaining: null,
        refusal: null,
      });
      await assertStoreUnchanged(h, before, 'check_payment');
    });

    test('a frozen wallet and a short balance are refusals, not violations', async () => {
      const { user, walletId, key } = await agent('10');
      const short = (await tool(h.app, key, 'check_payment', { toAddress: OUTSIDE_ADDRESS, amount: '11' }))
        .body.data;
      assert.equal(short.allowed, false);
      assert.equal(short.refusal.code, 'INSUFFICIENT_BALANCE');
      await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`);
      const frozen = (await tool(h.app, key, 'check_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' }))
        .body.data;
      assert.equal(frozen.allowed, false);
      assert.equal(frozen.refusal.code, 'WALLET_FROZEN');
      assert.equal(frozen.balanceAfter, '10.000000');
    });

    test('bad input is a 400; a write-only key is refused', async () => {
      const { user, walletId, key } = await agent('10');
      expectError(
        await tool(h.app, key, 'check_payment', { toAddress: '0x12', amount: '1' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await tool(h.app, key, 'check_payment', { toAddress: OTHER, amount: '1.0000001' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await tool(h.app, key, 'check_payment', { toAddress: OTHER }), 400, 'VALIDATION_ERROR');
      const writeOnly = await createKey(user, walletId, { label: 'w', scopes: ['write'] });
      expectError(
        await tool(h.app, writeOnly, 'check_payment', { toAddress: OTHER, amount: '1' }),
        403,
        'INSUFFICIENT_SCOPE',
      );
    });

    test('every policy change is recorded with who, when, before and after', async () => {
      const { user, walletId } = await agent('10');
      const policyId = await addPolicy(user, walletId, 'spend_cap_window', { limit: '5', window: '1h' });
      const url = `/api/v1/agent-wallets/${walletId}/policies/${policyId}`;
      h.clock.advanceMs(1);
      assert.equal((await user.api.patch(url, { params: { limit: '6', window: '24h' } })).status, 200);
      h.clock.advanceMs(1);
      assert.equal((await user.api.patch(url, { active: false })).status, 200);
      h.clock.advanceMs(1);
      assert.equal((await user.api.patch(url, { active: true })).status, 200);
      h.clock.advanceMs(1);
      assert.equal((await user.api.delete(url)).status, 200);
      const changes = await user.api.get(`/api/v1/agent-wallets/${walletId}/policies/changes`);
      assert.equal(changes.status, 200, changes.raw);
      const items = changes.body.data.items;
      assert.deepEqual(
        items.map((c: { action: string }) => c.action),
        ['deleted', 'resumed', 'paused', 'updated', 'created'],
      );
      for (const c of items) {
        assert.equal(c.policyId, policyId);
        assert.equal(c.actor, `user:${user.id}`);
      }
      const updated = items[3];
      assert.deepEqual(updated.before.params, { limit: '5.000000', window: '1h' });
      assert.deepEqual(updated.after.params, { limit: '6.000000', window: '24h' });
      assert.equal(items[0].after, null);
      assert.equal(items[4].before, null);
      const stranger = await signupUser(h.app);
      expectError(
        await stranger.api.get(`/api/v1/agent-wallets/${walletId}/policies/changes`),
        404,
        'NOT_FOUND',
      );
    });

    test('the owner simulates through REST; another user gets a 404', async () => {
      const { user, walletId } = await agent('10');
      const policyId = await addPolicy(user, walletId, 'address_blocklist', { addresses: [OTHER] });
      const url = `/api/v1/agent-wallets/${walletId}/policies/simulate`;
      const denied = await user.api.post(url, { toAddress: OTHER, amount: '1' });
      assert.equal(denied.status, 200, denied.raw);
      assert.equal(denied.body.data.allowed, false);
      assert.deepEqual(
        denied.body.data.violations.map((v: { policyId: string; attempted: string }) => [
          v.policyId,
          v.attempted,
        ]),
        [[policyId, OTHER]],
      );
      expectError(await user.api.post(url, { toAddress: OTHER, amount: 'ten' }), 400, 'VALIDATION_ERROR');
      expectError(
        await user.api.post(url, { toAddress: OTHER, amount: '1', extra: true }),
        400,
        'VALIDATION_ERROR',
      );
      const stranger = await signupUser(h.app);
      expectError(await stranger.api.post(url, { toAddress: OTHER, amount: '1' }), 404, 'NOT_FOUND');
    });
  });
}
