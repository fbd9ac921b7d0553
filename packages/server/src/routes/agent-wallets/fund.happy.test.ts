import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertAgentWalletShape,
  assertKeys,
  assertLedgerOk,
  assertTransactionShape,
  balancesOf,
  storeState,
} from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:id/fund happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_fund_happy');
    });
    after(() => h.close());

    test('moves master -> agent: 200 {transaction, wallet, masterBalance}', async () => {
      const { user, walletId, wallet } = await fundedUser(h.app, '100');
      h.clock.advanceSeconds(5);
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '10.5' });
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assertKeys(reply.body.data, ['transaction', 'wallet', 'masterBalance']);
      const { transaction, wallet: after, masterBalance } = reply.body.data;
      assertTransactionShape(transaction);
      const now = new Date(h.clock.nowMs()).toISOString();
      assert.deepEqual(
        { ...transaction, id: 'x' },
        {
          id: 'x',
          walletId,
          type: 'fund',
          status: 'completed',
          amount: '10.500000',
          currency: 'USDC',
          toAddress: wallet.address,
          memo: null,
          reason: null,
          rail: 'internal',
          txHash: null,
          rejectionReason: null,
          violations: null,
          initiatedBy: `user:${user.id}`,
          resource: null,
          approvalsRequired: null,
          approvals: [],
          expiresAt: null,
          createdAt: now,
          updatedAt: now,
        },
      );
      assertAgentWalletShape(after);
      assert.equal(after.id, walletId);
      assert.equal(after.balance, '10.500000');
      assert.equal(masterBalance, '89.500000');
      assert.deepEqual(await balancesOf(user, walletId), { master: '89.500000', agent: '10.500000' });
      await assertLedgerOk(h);
    });

    test('the smallest amount and the whole master balance can be moved', async () => {
      const { user, walletId } = await fundedUser(h.app, '1.000001');
      const tiny = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '0.000001' });
      assert.equal(tiny.status, 200, tiny.raw);
      assert.equal(tiny.body.data.transaction.amount, '0.000001');
      const rest = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '1' });
      assert.equal(rest.status, 200, rest.raw);
      assert.equal(rest.body.data.masterBalance, '0.000000');
      assert.deepEqual(await balancesOf(user, walletId), { master: '0.000000', agent: '1.000001' });
      await assertLedgerOk(h);
    });

    test('an Idempotency-Key header replays the first result and moves the money once', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      const headers = { 'idempotency-key': 'fund-once-1' };
      const first = await user.api.post(
        `/api/v1/agent-wallets/${walletId}/fund`,
        { amount: '25' },
        { headers },
      );
      assert.equal(first.status, 200, first.raw);
      const state = await storeState(h);
      h.clock.advanceSeconds(3600);
      for (let i = 0; i < 3; i += 1) {
        const again = await user.api.post(
          `/api/v1/agent-wallets/${walletId}/fund`,
          { amount: '25' },
          { headers },
        );
        assert.equal(again.status, 200, again.raw);
        assert.deepEqual(again.body, first.body);
      }
      assert.deepEqual(await storeState(h), state, 'a replay moved money');
      assert.deepEqual(await balancesOf(user, walletId), { master: '75.000000', agent: '25.000000' });
    });

    test('an idempotencyKey body field works the same, amounts compared as micro-units', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      const url = `/api/v1/agent-wallets/${walletId}/fund`;
      const first = await user.api.post(url, { amount: '10.5', idempotencyKey: 'body-key' });
      assert.equal(first.status, 200, first.raw);
      const same = await user.api.post(url, { amount: '10.500000', idempotencyKey: 'body-key' });
      assert.deepEqual(same.body, first.body);
      const viaHeader = await user.api.post(
        url,
        { amount: '10.5' },
        { headers: { 'idempotency-key': 'body-key' } },
      );
      assert.deepEqual(viaHeader.body, first.body);
      const both = await user.api.post(
        url,
        { amount: '10.5', idempotencyKey: 'body-key' },
        { headers: { 'idempotency-key': 'body-key' } },
      );
      assert.deepEqual(both.body, first.body);
      assert.deepEqual(await balancesOf(user, walletId), { master: '89.500000', agent: '10.500000' });
      const list = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions`);
      assert.equal(list.body.data.total, 1);
    });

    test('the same key with another amount, wallet or direction is 409 IDEMPOTENCY_CONFLICT; nothing moves', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      const second = await user.api.post('/api/v1/agent-wallets', { label: 'second' });
      const key = { 'idempotency-key': 'conflict-key' };
      assert.equal(
        (await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '5' }, { headers: key }))
          .status,
        200,
      );
      const state = await storeState(h);
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '6' }, { headers: key }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      expectError(
        await user.api.post(
          `/api/v1/agent-wallets/${second.body.data.id}/fund`,
          { amount: '5' },
          { headers: key },
        ),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      expectError(
        await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, { amount: '5' }, { headers: key }),
        409,
        'IDEMPOTENCY_CONFLICT',
      );
      assert.deepEqual(await storeState(h), state, 'a conflicting key moved money');
    });

    test('an insufficient-balance answer is replayed too, even after a deposit', async () => {
      const { user, walletId } = await fundedUser(h.app, '1');
      const headers = { 'idempotency-key': 'too-much' };
      const first = await user.api.post(
        `/api/v1/agent-wallets/${walletId}/fund`,
        { amount: '2' },
        { headers },
      );
      expectError(first, 422, 'INSUFFICIENT_BALANCE');
      await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '10' });
      const again = await user.api.post(
        `/api/v1/agent-wallets/${walletId}/fund`,
        { amount: '2' },
        { headers },
      );
      assert.equal(again.status, 422);
      assert.deepEqual(again.body, first.body);
      assert.deepEqual(await balancesOf(user, walletId), { master: '11.000000', agent: '0.000000' });
    });

    test('a key older than 24 hours is forgotten: the request runs again', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      const headers = { 'idempotency-key': 'day-old' };
      const url = `/api/v1/agent-wallets/${walletId}/fund`;
      const first = await user.api.post(url, { amount: '1' }, { headers });
      h.clock.advanceSeconds(24 * 3600 - 1);
      assert.deepEqual((await user.api.post(url, { amount: '1' }, { headers })).body, first.body);
      h.clock.advanceSeconds(2);
      const fresh = await user.api.post(url, { amount: '1' }, { headers });
      assert.equal(fresh.status, 200, fresh.raw);
      assert.notEqual(fresh.body.data.transaction.id, first.body.data.transaction.id);
      assert.deepEqual(await balancesOf(user, walletId), { master: '98.000000', agent: '2.000000' });
    });

    test('a 255-character key is accepted', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const reply = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, {
        amount: '1',
        idempotencyKey: 'k'.repeat(255),
      });
      assert.equal(reply.status, 200, reply.raw);
    });
  });
}
