// Spending policies end to end: each type alone, all together, exact boundaries, the rolling 24 h window,
// and races between approvals and payments.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyLedger } from '../src/ledger/verify.ts';
import { addPolicy, balances, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser } from './support/http.ts';

const OTHER = `0x${'cd'.repeat(20)}`;

for (const target of await storeTargets()) {
  describe(`policies (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies');
    });
    after(() => h.close());

    async function agent(amount = '1000') {
      const setup = await fundedUser(h.app, '10000');
      await fund(setup.user, setup.walletId, amount);
      return { ...setup, key: await createKey(setup.user, setup.walletId) };
    }
    const pay = (key: string, amount: string, toAddress = OUTSIDE_ADDRESS) =>
      tool(h.app, key, 'send_payment', { toAddress, amount });

    test('spend_cap_per_tx: the cap itself passes, one micro-unit more is denied', async () => {
      const { user, walletId, key } = await agent();
      const policyId = await addPolicy(user, walletId, 'spend_cap_per_tx', { limit: '10.5' });
      assert.equal((await pay(key, '10.5')).body.data.status, 'completed');
      const denied = await pay(key, '10.500001');
      expectError(denied, 422, 'POLICY_DENIED');
      assert.deepEqual(
        denied.body.error.violations.map((v: { policyId: string }) => v.policyId),
        [policyId],
      );
      assert.equal(denied.body.data.status, 'rejected');
      assert.match(denied.body.data.txId, /^tx_/);
      assert.deepEqual(await balances(h.app, key), { balance: '989.500000', heldBalance: '0.000000' });
    });

    test('spend_cap_daily is a rolling 24 hours, counting held payments', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'spend_cap_daily', { limit: '100' });
      assert.equal((await pay(key, '60')).status, 200);
      h.clock.advanceSeconds(12 * 3600);
      const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '30' });
      assert.equal(held.status, 200);
      assert.equal((await tool(h.app, key, 'check_balance')).body.data.dailyCapRemaining, '10.000000');
      expectError(await pay(key, '10.000001'), 422, 'POLICY_DENIED');
      assert.equal((await pay(key, '10')).status, 200);
      // 24 h after the first payment it leaves the window: 60 USDC of room comes back, not a reset to 100.
      h.clock.advanceSeconds(12 * 3600);
      expectError(await pay(key, '60.000001'), 422, 'POLICY_DENIED');
      h.clock.advanceMs(1);
      assert.equal((await tool(h.app, key, 'check_balance')).body.data.dailyCapRemaining, '60.000000');
      assert.equal((await pay(key, '60')).status, 200);
    });

    test('spend_cap_total counts completed and held spending, and rejected approvals give room back', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'spend_cap_total', { limit: '50' });
      assert.equal((await pay(key, '20')).status, 200);
      const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '30' });
      expectError(await pay(key, '0.000001'), 422, 'POLICY_DENIED');
      const txId = held.body.data.txId;
      const rejected = await user.api.post(`/api/v1/agent-wallets/${walletId}/transactions/${txId}/reject`, {
        reason: 'no',
      });
      assert.equal(rejected.body.data.status, 'rejected');
      assert.equal((await tool(h.app, key, 'check_balance')).body.data.totalCapRemaining, '30.000000');
      assert.equal((await pay(key, '30')).status, 200);
      expectError(await pay(key, '0.000001'), 422, 'POLICY_DENIED');
    });

    test('address_allowlist accepts listed addresses in any case and denies the rest', async () => {
      const { user, walletId, key } = await agent();
      await addPolicy(user, walletId, 'address_allowlist', {
        addresses: [OUTSIDE_ADDRESS.toUpperCase().replace('0X', '0x')],
      });
      assert.equal((await pay(key, '1')).status, 200);
      const denied = await pay(key, '1', OTHER);
      expectError(denied, 422, 'POLICY_DENIED');
      assert.equal(denied.body.error.violations[0].policyType, 'address_allowlist');
    });

    test('require_approval_above holds the payment strictly above the threshold', async () => {
      const { user, walletId, key } = await agent('100');
      await addPolicy(user, walletId, 'require_approval_above', { amount: '25' });
      assert.equal((await pay(key, '25')).body.data.status, 'completed');
      const held = await pay(key, '25.000001');
      assert.equal(held.status, 200);
      assert.equal(held.body.data.status, 'pending');
      assert.deepEqual(await balances(h.app, key), { balance: '49.999999', heldBalance: '25.000001' });
      const approved = await user.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${held.body.data.txId}/approve`,
      );
      assert.equal(approved.body.data.status, 'completed');
      assert.deepEqual(await balances(h.app, key), { balance: '49.999999', heldBalance: '0.000000' });
    });

    test('all five together: every violated policy is reported; pausing one lifts it', async () => {
      const { user, walletId, key } = await agent();
      const perTx = await addPolicy(user, walletId, 'spend_cap_per_tx', { limit: '5' });
      const daily = await addPolicy(user, walletId, 'spend_cap_daily', { limit: '5' });
      const total = await addPolicy(user, walletId, 'spend_cap_total', { limit: '5' });
      const list = await addPolicy(user, walletId, 'address_allowlist', { addresses: [OTHER] });
      await addPolicy(user, walletId, 'require_approval_above', { amount: '1' });
      const denied = await pay(key, '6');
      expectError(denied, 422, 'POLICY_DENIED');
      const ids = denied.body.error.violations.map((v: { policyId: string }) => v.policyId).sort();
      assert.deepEqual(ids, [perTx, daily, total, list].sort());
      const paused = await user.api.patch(`/api/v1/agent-wallets/${walletId}/policies/${list}`, {
        active: false,
      });
      assert.equal(paused.body.data.active, false);
      const held = await pay(key, '5');
      assert.equal(held.body.data.status, 'pending', 'within every cap but above the approval threshold');
      assert.equal((await pay(key, '0.5')).status, 422, 'the held 5 already uses the daily cap');
      const caps = (await tool(h.app, key, 'check_balance')).body.data;
      assert.equal(caps.dailyCapRemaining, '0.000000');
      assert.equal(caps.totalCapRemaining, '0.000000');
    });

    test('request_approval is not gated by policies but lists what it would violate', async () => {
      const { user, walletId, key } = await agent('100');
      const cap = await addPolicy(user, walletId, 'spend_cap_per_tx', { limit: '1' });
      const asked = await tool(h.app, key, 'request_approval', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '40',
        reason: 'rent',
      });
      assert.equal(asked.status, 200);
      assert.equal(asked.body.data.status, 'pending');
      const pending = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/pending`);
      const tx = pending.body.data.transactions[0];
      assert.equal(tx.reason, 'rent');
      assert.deepEqual(
        tx.violations.map((v: { policyId: string }) => v.policyId),
        [cap],
      );
      expectError(
        await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '60.000001' }),
        422,
        'INSUFFICIENT_BALANCE',
      );
      // Approval does not evaluate policies again: the owner's decision stands.
      const approved = await user.api.post(`/api/v1/agent-wallets/${walletId}/transactions/${tx.id}/approve`);
      assert.equal(approved.body.data.status, 'completed');
    });

    test('an approval racing payments cannot overspend; two approvals settle once', async () => {
      const { user, walletId, key } = await agent('100');
      const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '70' });
      const txId = held.body.data.txId;
      const approveUrl = `/api/v1/agent-wallets/${walletId}/transactions/${txId}/approve`;
      const [a1, a2, ...payments] = await Promise.all([
        user.api.post(approveUrl),
        user.api.post(approveUrl),
        ...Array.from({ length: 20 }, () => pay(key, '5')),
      ]);
      const statuses = [a1!.status, a2!.status].sort();
      assert.deepEqual(statuses, [200, 409]);
      assert.equal(payments.filter((p) => p.status === 200).length, 6, 'only the 30 not held can be spent');
      assert.deepEqual(await balances(h.app, key), { balance: '0.000000', heldBalance: '0.000000' });
      assert.deepEqual((await verifyLedger(h.services.store)).problems, []);
    });

    test('unanswered approvals expire after 72 hours and release the hold', async () => {
      const { user, walletId, key } = await agent('100');
      const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '10' });
      const detailUrl = `/api/v1/agent-wallets/${walletId}/transactions/${held.body.data.txId}`;
      h.clock.advanceSeconds(72 * 3600 - 1);
      await h.services.approvals.expireDue(); // other suites' older approvals may expire here, not this one
      assert.equal((await user.api.get(detailUrl)).body.data.status, 'pending');
      h.clock.advanceSeconds(1);
      assert.ok((await h.services.approvals.expireDue()) >= 1);
      assert.deepEqual(await balances(h.app, key), { balance: '100.000000', heldBalance: '0.000000' });
      const approve = await user.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${held.body.data.txId}/approve`,
      );
      expectError(approve, 409, 'INVALID_STATE');
      const detail = await user.api.get(detailUrl);
      assert.equal(detail.body.data.status, 'expired');
      assert.deepEqual(
        detail.body.data.events.map((e: { status: string }) => e.status),
        ['pending', 'expired'],
      );
    });

    test('the audit trail records who did what, and when', async () => {
      const { user, walletId, key } = await agent('100');
      const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '10' });
      h.clock.advanceSeconds(60);
      await user.api.post(`/api/v1/agent-wallets/${walletId}/transactions/${held.body.data.txId}/approve`);
      const detail = await user.api.get(
        `/api/v1/agent-wallets/${walletId}/transactions/${held.body.data.txId}`,
      );
      const keyId = (await user.api.get(`/api/v1/agent-wallets/${walletId}/keys`)).body.data.items[0].id;
      assert.equal(detail.body.data.initiatedBy, `key:${keyId}`);
      const events = detail.body.data.events.map(
        (e: { status: string; actor: string }) => `${e.status} by ${e.actor}`,
      );
      assert.deepEqual(events, [
        `pending by key:${keyId}`,
        `processing by user:${user.id}`,
        'completed by system',
      ]);
      assert.equal(detail.body.data.events[1].at, new Date(h.clock.nowMs()).toISOString());
    });
  });
}
