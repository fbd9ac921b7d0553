// 200 fund/withdraw requests racing on one agent wallet: every answer is 200 or 422 INSUFFICIENT_BALANCE, no
// balance goes negative, the ledger balances, and the final balances are exactly the accepted operations.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertLedgerOk, balancesOf } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError, fundedUser, type Reply } from '../../../test/support/http.ts';
import { decimalToMicros, formatMicros } from '../../domain/money.ts';

const REQUESTS = 200;
const SEED = Number(process.env.TEST_SEED ?? 20_261_101);

/** A small deterministic PRNG (mulberry32): a failing run can be replayed with TEST_SEED. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

for (const target of await storeTargets()) {
  describe(`fund/withdraw concurrency (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'aw_fund_concurrency');
    });
    after(() => h.close());

    test(`${REQUESTS} concurrent funds and withdrawals: balances are exactly the accepted operations (seed ${SEED})`, async () => {
      const { user, walletId } = await fundedUser(h.app, '1000');
      const start = await user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '100' });
      assert.equal(start.status, 200, start.raw);
      const next = random(SEED);
      // Amounts of 0.000001 .. 249.999999, so both sides run dry now and then; every 20th asks for more than
      // the 1000 in play and must be refused whatever the order.
      const operations = Array.from({ length: REQUESTS }, (_, i) => {
        const direction = next() < 0.5 ? 'fund' : 'withdraw';
        const whole = i % 20 === 19 ? 1000 : Math.floor(next() * 250);
        const fraction = Math.max(1, Math.floor(next() * 1_000_000));
        return { direction, amount: `${whole}.${String(fraction).padStart(6, '0')}` } as const;
      });

      const replies: Reply[] = await Promise.all(
        operations.map((op) =>
          user.api.post(`/api/v1/agent-wallets/${walletId}/${op.direction}`, { amount: op.amount }),
        ),
      );

      let master = decimalToMicros('900');
      let agent = decimalToMicros('100');
      let accepted = 0;
      let rejected = 0;
      for (const [i, reply] of replies.entries()) {
        const op = operations[i]!;
        if (reply.status === 200) {
          accepted += 1;
          const micros = decimalToMicros(op.amount);
          assert.equal(reply.body.data.transaction.amount, formatMicros(micros));
          assert.equal(reply.body.data.transaction.type, op.direction);
          assert.ok(!reply.body.data.masterBalance.startsWith('-'));
          assert.ok(!reply.body.data.wallet.balance.startsWith('-'));
          if (op.direction === 'fund') {
            master -= micros;
            agent += micros;
          } else {
            master += micros;
            agent -= micros;
          }
        } else {
          rejected += 1;
          expectError(reply, 422, 'INSUFFICIENT_BALANCE');
        }
      }
      assert.equal(accepted + rejected, REQUESTS);
      assert.ok(accepted > 0, 'no operation was accepted');
      assert.ok(rejected >= REQUESTS / 20, 'the overdrafts were not all refused');
      assert.ok(master >= 0n && agent >= 0n);
      assert.deepEqual(await balancesOf(user, walletId), {
        master: formatMicros(master),
        agent: formatMicros(agent),
      });
      assert.equal(master + agent, decimalToMicros('1000'), 'money was created or destroyed');
      const list = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions?limit=1`);
      assert.equal(list.body.data.total, accepted + 1, 'one transaction per accepted operation');
      await assertLedgerOk(h);
    });

    test('50 concurrent duplicates with one Idempotency-Key move the money once and all get the same answer', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      const headers = { 'idempotency-key': 'burst-key' };
      const replies = await Promise.all(
        Array.from({ length: 50 }, () =>
          user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '7.5' }, { headers }),
        ),
      );
      for (const reply of replies) {
        assert.equal(reply.status, 200, reply.raw);
        assert.deepEqual(reply.body, replies[0]!.body);
      }
      assert.deepEqual(await balancesOf(user, walletId), { master: '92.500000', agent: '7.500000' });
      const list = await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions`);
      assert.equal(list.body.data.total, 1);
      await assertLedgerOk(h);
    });

    test('one key raced with two different amounts: one executes, its twins replay it, the others are 409', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      const headers = { 'idempotency-key': 'mixed-params' };
      const amounts = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? '2' : '1'));
      const replies = await Promise.all(
        amounts.map((amount) =>
          user.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount }, { headers }),
        ),
      );
      const winners = replies.filter((r) => r.status === 200);
      assert.ok(winners.length > 0);
      const executed: string = winners[0]!.body.data.transaction.amount;
      for (const [i, reply] of replies.entries()) {
        if (`${amounts[i]}.000000` === executed) assert.deepEqual(reply.body, winners[0]!.body);
        else expectError(reply, 409, 'IDEMPOTENCY_CONFLICT');
      }
      const agent = executed;
      const master = executed === '2.000000' ? '98.000000' : '99.000000';
      assert.deepEqual(await balancesOf(user, walletId), { master, agent });
      await assertLedgerOk(h);
    });

    test('two wallets drained from one master at once: the master never goes below zero', async () => {
      const { user, walletId } = await fundedUser(h.app, '10');
      const second = await user.api.post('/api/v1/agent-wallets', { label: 'second' });
      const ids = [walletId, second.body.data.id as string];
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          user.api.post(`/api/v1/agent-wallets/${ids[i % 2]}/fund`, { amount: '1' }),
        ),
      );
      const ok = replies.filter((r) => r.status === 200).length;
      for (const reply of replies) if (reply.status !== 200) expectError(reply, 422, 'INSUFFICIENT_BALANCE');
      assert.equal(ok, 10);
      assert.equal((await user.api.get('/api/v1/wallet/balance')).body.data.balance, '0.000000');
      await assertLedgerOk(h);
    });
  });
}
