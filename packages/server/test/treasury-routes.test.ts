// The owners' routes of a bounded treasury on anvil with the framework's npm bytecode: the revocation of the
// service's allowance asked for over HTTP (POST /wallet/treasury/revoke: one waiting request however often it is
// asked), signed by the owners over HTTP, after which the chain refuses every redemption — the float pays what it
// still holds and is never refilled; both routes refuse a stale session (step-up); the float keeps paying a run of
// payouts within the allowance, and again after a period rolls over; and a treasury_at_risk alert fires once per
// crossing of what a breach could take.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, getAddress, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { activeDelegation, shapeOf } from '../src/chain/bounded/bounded.ts';
import { redeemCall } from '../src/chain/bounded/delegation.ts';
import { tool, toolOk } from './support/agent.ts';
import { anvilAvailable, anvilWalletClient, mine, rpc } from './support/anvil.ts';
import { owners, startBoundedWorld } from './support/bounded.ts';
import { type EvmBuyer, type EvmWorld, fundedEvmBuyer } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, storeTargets } from './support/harness.ts';
import { addMember, expectError, signupUser, stepUpWithPassword, type TestUser } from './support/http.ts';

const probe = await anvilAvailable();
const USDC = 1_000_000n;
const ALLOWANCE = 100n * USDC;
const FLOAT_MAX = 40n * USDC;
const DAY_SECONDS = 86_400;
const STEP_UP_AGE_SECONDS = 300;
const OUTSIDE = '0x00000000000000000000000000000000000c0ffe' as Address;

for (const target of await storeTargets()) {
  describe(`the owners' treasury routes on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let account: Address;
    let buyer: EvmBuyer;
    const rail = () => h.services.chain!.rail;
    const balance = (address: Address) => world.usdc.balanceOf(address);
    const float = () => balance(rail().keys.treasury.address);
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await h.services.chain!.duties.send();
        await mine(world.anvil, 1);
      }
    };
    const revokeRows = () =>
      h.services.store.db
        .selectFrom('treasury_signature_requests')
        .select(['id', 'status'])
        .where('kind', '=', 'revoke')
        .execute();
    /** What the service has redeemed in refills (its outbox rows that did not fail). */
    const refilledMicros = async () => {
      const rows = await h.services.store.db
        .selectFrom('chain_outbox')
        .select(['amount_micros', 'status'])
        .where('kind', '=', 'refill')
        .execute();
      return rows.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amount_micros, 0n);
    };
    const pay = (amount: string) => tool(h, buyer.key, 'send_payment', { toAddress: OUTSIDE, amount });

    before(async () => {
      ({ world, h, account } = await startBoundedWorld(target.name, 'treasury_routes', {
        allowance: '100',
        floatMax: '40',
        fundMicros: 1_000n * USDC,
        env: {
          WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          RATE_LIMITS: JSON.stringify({ send_payment: 10_000, default: 100_000 }),
        },
      }));
      buyer = await fundedEvmBuyer(h, world, { masterMicros: 400n * USDC, fund: '300', confirmations: 1 });
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test('a treasury_at_risk alert fires treasury.at_risk once per crossing of atRisk above its amount', async () => {
      const owner = await signupUser(h.app);
      const hook = await owner.api.post('/api/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['treasury.at_risk'],
      });
      assert.equal(hook.status, 201, hook.raw);
      const alerts = '/api/v1/alerts';
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      expectError(
        await owner.api.post(alerts, {
          type: 'treasury_at_risk',
          walletId: master.id,
          params: { amount: '1' },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await owner.api.post(alerts, { type: 'treasury_at_risk', params: { percent: 5 } }),
        400,
        'VALIDATION_ERROR',
      );
      await rounds(2);
      const atRisk = async () => (await rail().treasury.refresh())!.atRiskMicros;
      const before = await atRisk();
      assert.ok(before > 10n * USDC, `at risk ${before}`);
      const threshold = before - 5n * USDC;
      const created = await owner.api.post(alerts, {
        type: 'treasury_at_risk',
        params: { amount: (Number(threshold) / 1e6).toFixed(6) },
      });
      assert.equal(created.status, 201, created.raw);
      assert.equal(created.body.data.walletId, master.id, 'kept with the organization’s master wallet');
      const fired = async () =>
        (
          await h.services.store.db
            .selectFrom('webhook_events')
            .select(['data_json', 'user_id'])
            .where('type', '=', 'treasury.at_risk')
            .orderBy('created_at_ms')
            .orderBy('id')
            .execute()
        )
          .filter((r) => r.user_id === owner.id)
          .map((r) => JSON.parse(r.data_json));
      const firing = async () => (await owner.api.get(alerts)).body.data.items[0].firing;

      await rounds(3);
      assert.deepEqual(await fired(), [
        {
          alertId: created.body.data.id,
          atRisk: (Number(before) / 1e6).toFixed(6),
          threshold: (Number(threshold) / 1e6).toFixed(6),
        },
      ]);
      assert.equal(await firing(), true);
      await rounds(3);
      assert.equal((await fired()).length, 1, 'still above: no second event');

      // A payout out of the float lowers atRisk below the amount: re-armed, nothing sent.
      toolOk(await pay('9'), 'send_payment');
      await rounds(3);
      assert.ok((await atRisk()) <= threshold);
      assert.equal(await firing(), false, 're-armed');
      assert.equal((await fired()).length, 1);

      // A new period gives the whole allowance back: above again, a second event.
      await rpc(world.anvil, 'evm_increaseTime', [DAY_SECONDS]);
      await mine(world.anvil, 1);
      await rounds(3);
      const events = await fired();
      assert.equal(events.length, 2, 'a second crossing, a second event');
      assert.ok(BigInt(Math.round(Number(events[1].atRisk) * 1e6)) > threshold);
      const deleted = await owner.api.delete(`${alerts}/${created.body.data.id}`);
      assert.equal(deleted.status, 200, deleted.raw);
    });

    test('payouts in a row are paid from the float within the allowance; past it they wait for the owners until the next period', async () => {
      const paidBefore = await balance(OUTSIDE);
      const leftNow = async () => {
        const reading = await rail().treasury.refresh();
        return reading!.usdcMicros + (reading!.bounded!.remainingMicros ?? 0n);
      };
      const startLeft = await leftNow();
      // Until less than the float's cap is left this period (so one payout more than that is payable in the next).
      let paid = 0n;
      for (let i = 0; i < 20 && (await leftNow()) > 30n * USDC; i += 1) {
        toolOk(await pay('9'), 'send_payment');
        paid += 9n * USDC;
        await rounds(2);
        assert.ok((await float()) <= FLOAT_MAX, 'the float never exceeds TREASURY_FLOAT_MAX');
      }
      await rounds(3);
      assert.ok(paid >= 5n * 9n * USDC, `several payouts in a row (${paid})`);
      assert.equal((await balance(OUTSIDE)) - paidBefore, paid, 'every payout went out');
      const period = await rail().treasury.refresh();
      const left = await leftNow();
      assert.equal(
        left,
        startLeft - paid,
        'float + remaining fell by what was paid: refills only moved money',
      );

      // More than the float and the rest of the period can pay: it waits for the owners, held, nothing paid out;
      // declined, its hold goes back.
      const walletBefore = (await buyer.owner.api.get(`/api/v1/agent-wallets/${buyer.walletId}`)).body.data;
      const waiting = toolOk(await pay((Number(left + USDC) / 1e6).toFixed(6)), 'send_payment');
      assert.equal(waiting.status, 'pending');
      assert.match(String(waiting.reason), /allowance for this period cannot cover it/);
      const declined = await buyer.owner.api.post(
        `/api/v1/agent-wallets/${buyer.walletId}/transactions/${waiting.txId}/reject`,
        {},
      );
      assert.equal(declined.status, 200, declined.raw);
      const walletAfter = (await buyer.owner.api.get(`/api/v1/agent-wallets/${buyer.walletId}`)).body.data;
      assert.equal(walletAfter.balance, walletBefore.balance, 'nothing was debited');
      assert.equal((await balance(OUTSIDE)) - paidBefore, paid, 'nothing went out');

      // The next period: the allowance is whole again (less any refill it made) and the same payout goes out.
      await rpc(world.anvil, 'evm_increaseTime', [DAY_SECONDS]);
      await mine(world.anvil, 1);
      await rounds(3);
      const next = await rail().treasury.refresh();
      assert.equal(
        (next!.bounded!.remainingMicros ?? 0n) + (next!.usdcMicros - period!.usdcMicros),
        ALLOWANCE,
        'a new period: the whole allowance again',
      );
      const amount = left + USDC;
      toolOk(await pay((Number(amount) / 1e6).toFixed(6)), 'send_payment');
      await rounds(3);
      assert.equal((await balance(OUTSIDE)) - paidBefore, paid + amount);
      assert.ok((await float()) <= FLOAT_MAX);
      await assertLedgerOk(h);
    });

    test('a stale session can neither hand in a signature nor ask for the revocation: 403 STEP_UP_REQUIRED, nothing changes', async () => {
      const owner = await signupUser(h.app);
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 300n * USDC);
      await mine(world.anvil, 1);
      await h.services.chain!.duties.watchDeposits();
      await rounds(2);
      const recipient = `0x${'e9'.repeat(20)}` as Address;
      const added = await owner.api.post('/api/v1/wallet/withdrawal-addresses', {
        address: recipient,
        label: 'cold',
      });
      assert.equal(added.status, 201, added.raw);
      const asked = await owner.api.post('/api/v1/wallet/withdrawals', {
        toAddress: recipient,
        amount: '250',
      });
      assert.equal(asked.status, 202, asked.raw);
      const { id, signRequest } = asked.body.data;
      const signature = await owners[0]!.signTypedData(signRequest.typedData);

      h.clock.advanceSeconds(STEP_UP_AGE_SECONDS + 1);
      const stale = await owner.api.post('/api/v1/wallet/treasury/signatures', { id, signature });
      expectError(stale, 403, 'STEP_UP_REQUIRED');
      assert.ok(Array.isArray(stale.body.error.methods), 'the refusal names how to step up');
      const stored = await h.services.store.db
        .selectFrom('treasury_signature_requests')
        .select('signatures_json')
        .where('transaction_id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.signatures_json, '[]', 'the signature was not taken');
      expectError(await owner.api.post('/api/v1/wallet/treasury/revoke'), 403, 'STEP_UP_REQUIRED');
      assert.deepEqual(await revokeRows(), [], 'no revocation was asked for');

      await stepUpWithPassword(owner);
      const taken = await owner.api.post('/api/v1/wallet/treasury/signatures', { id, signature });
      assert.equal(taken.status, 200, taken.raw);
      assert.equal(taken.body.data.signaturesNeeded, 1);
      assert.equal(await balance(recipient), 0n, 'one owner is not enough');
    });

    test('the owners revoke over HTTP: one waiting request however often asked; then no refill, and the float pays what it holds', async () => {
      await rounds(3);
      const owner: TestUser = await signupUser(h.app);
      const { member: admin } = await addMember(h.app, owner, 'admin');
      expectError(await admin.api.post('/api/v1/wallet/treasury/revoke'), 403, 'FORBIDDEN_ROLE');

      const asked = await owner.api.post('/api/v1/wallet/treasury/revoke');
      assert.equal(asked.status, 202, asked.raw);
      const { id, status, signRequest, signaturesNeeded } = asked.body.data;
      assert.equal(status, 'awaiting_signatures');
      assert.equal(signaturesNeeded, 2);
      assert.equal(signRequest.typedData.domain.verifyingContract, account);
      const again = await owner.api.post('/api/v1/wallet/treasury/revoke');
      assert.equal(again.status, 202, again.raw);
      assert.equal(again.body.data.id, id, 'asked again: the same waiting request');
      const [x, y] = await Promise.all([
        owner.api.post('/api/v1/wallet/treasury/revoke'),
        owner.api.post('/api/v1/wallet/treasury/revoke'),
      ]);
      assert.deepEqual([x.body.data.id, y.body.data.id], [id, id], 'asked at once: still the same one');
      assert.equal((await revokeRows()).length, 1);

      const hand = (signature: Hex) =>
        owner.api.post('/api/v1/wallet/treasury/signatures', { id, signature });
      const first = await hand(await owners[1]!.signTypedData(signRequest.typedData));
      assert.equal(first.status, 200, first.raw);
      assert.deepEqual(first.body.data.signedBy, [getAddress(owners[1]!.address)]);
      await rounds(2);
      assert.equal(
        ((await rail().treasury.refresh())!.bounded!.remainingMicros ?? 0n) > 0n,
        true,
        'one owner cannot revoke',
      );
      const second = await hand(await owners[2]!.signTypedData(signRequest.typedData));
      assert.equal(second.body.data.status, 'submitted');
      const submitted = await owner.api.post('/api/v1/wallet/treasury/revoke');
      assert.equal(submitted.body.data.id, id, 'on its way to the chain: still the same request');
      assert.equal(submitted.body.data.status, 'submitted');
      await rounds(3);
      assert.deepEqual(await revokeRows(), [{ id, status: 'completed' }]);

      const view = (await owner.api.get('/api/v1/wallet/treasury')).body.data;
      assert.equal(view.allowance.remaining, '0.000000', 'revoked: the chain lets the service take nothing');
      assert.equal(view.atRisk, view.float, 'what a breach could take is the float alone');
      expectError(await owner.api.post('/api/v1/wallet/treasury/revoke'), 409, 'INVALID_STATE');

      // Every later redemption fails on chain, whoever sends it.
      const stored = (await activeDelegation(
        h.services.store.db,
        rail().client,
        rail().config,
        shapeOf(rail().config, rail().keys),
      ))!;
      const serviceKey = anvilWalletClient(
        world.anvil,
        mnemonicToAccount(world.mnemonic, { addressIndex: 0 }),
      );
      const hash = await serviceKey.sendTransaction({
        ...redeemCall(rail().config.bounded!.framework, stored.delegation, world.usdc.address, OUTSIDE, 1n),
        gas: 1_000_000n,
      });
      assert.equal((await world.usdc.publicClient.waitForTransactionReceipt({ hash })).status, 'reverted');

      // The float pays what it holds, down past the refill mark; the account gives nothing more.
      const accountBefore = await balance(account);
      const refilledBefore = await refilledMicros();
      const held = await float();
      assert.ok(held > 2n * USDC, `the float holds ${held}`);
      const half = (held - 2n * USDC) / 2n;
      for (const amount of [half, held - 2n * USDC - half]) {
        toolOk(await pay((Number(amount) / 1e6).toFixed(6)), 'send_payment');
        await rounds(3);
      }
      assert.equal(await float(), 2n * USDC, 'paid from the float');
      // Past the float, with nothing left to redeem: it waits for the owners' own signatures.
      const waiting = toolOk(await pay('3'), 'send_payment');
      assert.equal(waiting.status, 'pending');
      assert.match(String(waiting.reason), /allowance for this period cannot cover it/);
      await rpc(world.anvil, 'evm_increaseTime', [DAY_SECONDS]);
      await mine(world.anvil, 1);
      await rounds(3);
      assert.equal(
        await balance(account),
        accountBefore,
        'no refill after the revocation, not even a new period',
      );
      assert.equal(await refilledMicros(), refilledBefore, 'no refill was even queued');
      await assertLedgerOk(h);
    });
  });
}
