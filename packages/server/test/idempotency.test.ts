// Idempotency keys (contract section 4): replays of every executed outcome, conflicts, simultaneous duplicates.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyLedger } from '../src/ledger/verify.ts';
import { addPolicy, balances, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser } from './support/http.ts';

for (const target of await storeTargets()) {
  describe(`idempotency (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'idempotency');
    });
    after(() => h.close());

    async function agent(amount = '100') {
      const setup = await fundedUser(h.app, '1000');
      await fund(setup.user, setup.walletId, amount);
      return { ...setup, key: await createKey(setup.user, setup.walletId) };
    }

    test('50 simultaneous calls with one key make one payment and 50 identical answers', async () => {
      const { key } = await agent();
      const params = { toAddress: OUTSIDE_ADDRESS, amount: '7.25', memo: 'once', idempotencyKey: 'order-42' };
      const replies = await Promise.all(
        Array.from({ length: 50 }, () => tool(h.app, key, 'send_payment', params)),
      );
      const raws = new Set(replies.map((r) => `${r.status} ${r.raw}`));
      assert.equal(raws.size, 1, [...raws].join('\n'));
      assert.equal(replies[0]!.status, 200);
      assert.equal(replies[0]!.body.data.status, 'completed');
      assert.deepEqual(await balances(h.app, key), { balance: '92.750000', heldBalance: '0.000000' });
      assert.deepEqual((await verifyLedger(h.services.store)).problems, []);
    });

    test('the header and the param are the same key; normalised params replay, other params conflict', async () => {
      const { key } = await agent();
      const first = await tool(
        h.app,
        key,
        'send_payment',
        { toAddress: OUTSIDE_ADDRESS, amount: '1.5' },
        { 'idempotency-key': 'k1' },
      );
      const upper = `0x${OUTSIDE_ADDRESS.slice(2).toUpperCase()}`;
      const replay = await tool(h.app, key, 'send_payment', {
        toAddress: upper,
        amount: '1.500000',
        idempotencyKey: 'k1',
      });
      assert.equal(replay.raw, first.raw);
      const otherMemo = await tool(h.app, key, 'send_payment', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '1.5',
        memo: 'x',
        idempotencyKey: 'k1',
      });
      expectError(otherMemo, 409, 'IDEMPOTENCY_CONFLICT');
      const otherTool = await tool(h.app, key, 'request_approval', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '1.5',
        idempotencyKey: 'k1',
      });
      expectError(otherTool, 409, 'IDEMPOTENCY_CONFLICT');
      const differing = await tool(
        h.app,
        key,
        'send_payment',
        { toAddress: OUTSIDE_ADDRESS, amount: '1.5', idempotencyKey: 'k2' },
        { 'idempotency-key': 'k3' },
      );
      expectError(differing, 400, 'VALIDATION_ERROR');
      assert.deepEqual(await balances(h.app, key), { balance: '98.500000', heldBalance: '0.000000' });
    });

    test('policy denials, insufficient balance and pending approvals are replayed, not re-executed', async () => {
      const { user, walletId, key } = await agent('10');
      await addPolicy(user, walletId, 'spend_cap_per_tx', { limit: '5' });
      const denied = await tool(h.app, key, 'send_payment', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '6',
        idempotencyKey: 'deny',
      });
      expectError(denied, 422, 'POLICY_DENIED');
      assert.equal(
        (
          await tool(h.app, key, 'send_payment', {
            toAddress: OUTSIDE_ADDRESS,
            amount: '6',
            idempotencyKey: 'deny',
          })
        ).raw,
        denied.raw,
      );

      const held = await tool(h.app, key, 'request_approval', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '8',
        idempotencyKey: 'ask',
      });
      assert.equal(held.status, 200);
      assert.equal(
        (
          await tool(h.app, key, 'request_approval', {
            toAddress: OUTSIDE_ADDRESS,
            amount: '8',
            idempotencyKey: 'ask',
          })
        ).raw,
        held.raw,
      );
      assert.deepEqual(await balances(h.app, key), { balance: '2.000000', heldBalance: '8.000000' });

      const broke = await tool(h.app, key, 'send_payment', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '3',
        idempotencyKey: 'broke',
      });
      expectError(broke, 422, 'INSUFFICIENT_BALANCE');
      await fund(user, walletId, '50');
      // The first outcome stands even though the wallet could pay now: a retry must not turn into a payment.
      assert.equal(
        (
          await tool(h.app, key, 'send_payment', {
            toAddress: OUTSIDE_ADDRESS,
            amount: '3',
            idempotencyKey: 'broke',
          })
        ).raw,
        broke.raw,
      );
      const history = await tool(h.app, key, 'get_tx_history', { limit: 100 });
      assert.equal(
        history.body.data.transactions.filter((t: { type: string }) => t.type === 'payment').length,
        2,
      );
    });

    test('refusals before execution store nothing: a frozen wallet retried after unfreezing pays', async () => {
      const { user, walletId, key } = await agent();
      await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`);
      const frozen = await tool(h.app, key, 'send_payment', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '1',
        idempotencyKey: 'f',
      });
      expectError(frozen, 403, 'WALLET_FROZEN');
      await user.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`);
      const paid = await tool(h.app, key, 'send_payment', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '1',
        idempotencyKey: 'f',
      });
      assert.equal(paid.status, 200);
      assert.equal(paid.body.data.status, 'completed');
    });

    test('keys are scoped to the wallet and expire after 24 hours', async () => {
      const a = await agent();
      const b = await agent();
      const params = { toAddress: OUTSIDE_ADDRESS, amount: '1', idempotencyKey: 'shared' };
      const first = await tool(h.app, a.key, 'send_payment', params);
      const other = await tool(h.app, b.key, 'send_payment', params);
      assert.notEqual(other.body.data.txId, first.body.data.txId, 'another wallet, another key space');
      h.clock.advanceSeconds(24 * 3600 - 1);
      assert.equal((await tool(h.app, a.key, 'send_payment', params)).raw, first.raw);
      h.clock.advanceSeconds(1);
      const fresh = await tool(h.app, a.key, 'send_payment', params);
      assert.notEqual(fresh.body.data.txId, first.body.data.txId, 'past 24 h the key is new again');
      assert.deepEqual(await balances(h.app, a.key), { balance: '98.000000', heldBalance: '0.000000' });
    });

    test('REST fund and withdraw are idempotent per user', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      const url = `/api/v1/agent-wallets/${walletId}/fund`;
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          user.api.post(url, { amount: '10' }, { headers: { 'idempotency-key': 'fund-1' } }),
        ),
      );
      assert.equal(new Set(replies.map((r) => r.raw)).size, 1);
      const conflict = await user.api.post(url, { amount: '11', idempotencyKey: 'fund-1' });
      expectError(conflict, 409, 'IDEMPOTENCY_CONFLICT');
      const withdraw = await user.api.post(`/api/v1/agent-wallets/${walletId}/withdraw`, {
        amount: '10',
        idempotencyKey: 'fund-1',
      });
      expectError(withdraw, 409, 'IDEMPOTENCY_CONFLICT');
      const master = await user.api.get('/api/v1/wallet/balance');
      assert.equal(master.body.data.balance, '90.000000');
    });
  });
}
