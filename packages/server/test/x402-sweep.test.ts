// Outside finding 2: payments were refused with "the treasury holds 0.000000 USDC" just after a sweep had landed
// on chain — the treasury's reading is kept for a few seconds and was taken before the sweep. Here the reading
// of the instance that takes the payment is taken before the deposit is swept, the sweep is sent and confirmed
// by the other instance (the sender lease holder), and the payment comes at once: only the swept money covers it.
// A payout (send_payment to an outside address) and an x402 payment are each checked on a stale reading.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, getAddress } from 'viem';
import { ManualClock } from '../src/clock.ts';
import type { RunningServer } from '../src/server.ts';
import { createKey, tool, toolOk } from './support/agent.ts';
import { anvilAvailable, mine } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import { signupUser, type TestUser } from './support/http.ts';
import { type Seller, startSeller } from './support/x402-seller.ts';

const CONFIRMATIONS = 2;
const probe = await anvilAvailable();
const SELLER_PAY_TO = getAddress('0x00000000000000000000000000000000005e11e5') as Address;
const OUTSIDE = getAddress('0x00000000000000000000000000000000000c0ff3') as Address;
const REPORT_MICROS = 6_000_000n;

for (const target of await storeTargets()) {
  describe(`a payment right after a sweep on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let sender: RunningServer;
    let seller: Seller;
    let owner: TestUser;
    let walletId: string;
    let key: string;

    before(async () => {
      world = await startEvmWorld();
      seller = await startSeller(world, SELLER_PAY_TO, { reportMicros: REPORT_MICROS, echoMicros: 1n });
      h = await startHarness(target.name, 'x402-sweep', {
        clock: new ManualClock(Date.now()),
        env: evmEnv(world, { CONFIRMATIONS: String(CONFIRMATIONS), X402_ALLOW_PRIVATE: 'true' }),
      });
      sender = await secondInstance(h);
      owner = await signupUser(h.app);
      const wallet = await owner.api.post('/api/v1/agent-wallets', { label: 'buyer' });
      walletId = wallet.body.data.id;
      key = (await createKey(owner, walletId, { label: 'k' })).key;
    });
    after(async () => {
      await sender?.close();
      await h?.close();
      await seller?.close();
      await world?.anvil.stop();
    });

    /**
     * A deposit credited and given to the agent; this instance reads the treasury (less than `aboveMicros`);
     * the other instance sweeps the deposit and confirms the sweep.
     */
    async function depositThenSweep(amount: string, aboveMicros: bigint): Promise<void> {
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, BigInt(amount) * 1_000_000n);
      await mine(world.anvil, CONFIRMATIONS);
      await h.services.chain!.duties.watchDeposits();
      const funded = await owner.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount });
      assert.equal(funded.status, 200, funded.raw);
      const treasury = h.services.chain!.rail.treasury;
      const stale = await treasury.refresh();
      assert.ok(stale !== null && stale.usdcMicros < aboveMicros, 'before the sweep the treasury cannot pay');
      for (let round = 0; round < 4; round += 1) {
        await sender.services.chain!.duties.send();
        await mine(world.anvil, CONFIRMATIONS);
      }
      const open = await h.services.store.db
        .selectFrom('chain_outbox')
        .select('status')
        .where('status', '!=', 'completed')
        .execute();
      assert.deepEqual(open, [], 'the sweep (and any payout) is confirmed');
      assert.ok((await world.usdc.balanceOf(world.treasury)) >= aboveMicros, 'the treasury can pay now');
      assert.equal(treasury.latest(), stale, 'this instance’s reading predates the sweep');
    }

    test('send_payment to an outside address only the swept money covers: sent, not 503', async () => {
      await depositThenSweep('5', 4_000_000n);
      const sent = await tool(h, key, 'send_payment', { toAddress: OUTSIDE, amount: '4' });
      assert.equal(sent.status, 200, sent.raw);
      assert.equal(toolOk(sent, 'send_payment').status, 'processing');
    });

    test('x402_fetch whose price only the swept money covers: paid, not 503', async () => {
      await depositThenSweep('6', REPORT_MICROS);
      const fetched = await tool(h, key, 'x402_fetch', { url: `${seller.origin}/report`, maxAmount: '6' });
      assert.equal(fetched.status, 200, fetched.raw);
      const data = toolOk(fetched, 'x402_fetch');
      assert.equal(data.status, 200);
      assert.equal(data.payment.amount, '6.000000');
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), REPORT_MICROS, 'paid on chain');
      await assertLedgerOk(h);
    });
  });
}
