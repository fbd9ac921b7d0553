// The owners' routes of a bounded treasury on anvil with the framework's npm bytecode: the revocation of the
// service's allowance asked for over HTTP (POST /wallet/treasury/revoke: one waiting request however often it is
// asked), signed by the owners over HTTP, after which the chain refuses every redemption — the float pays what it
// still holds and is never refilled; both routes refuse a stale session (step-up); and the float keeps paying a
// run of payouts within the allowance, and again after a period rolls over.
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
          RATE_LIMITS: JSON.stringify({ send_payment: 10_000, default: 100_000 }),
        },
      }));
      buyer = await fundedEvmBuyer(h, world, { masterMicros: 400n * USDC, fund: '300', confirmations: 1 });
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test('payouts in a row are paid from the float within the allowance; past it they are refused until the next period', async () => {
      const paidBefore = await balance(OUTSIDE);
      for (let i = 0; i < 8; i += 1) {
        toolOk(await pay('9'), 'send_payment');
        await rounds(2);
        assert.ok((await float()) <= FLOAT_MAX, 'the float never exceeds TREASURY_FLOAT_MAX');
      }
      await rounds(3);
      assert.equal((await balance(OUTSIDE)) - paidBefore, 72n * USDC, 'every payout went out');
      const period = await rail().treasury.refresh();
      const left = period!.usdcMicros + (period!.bounded!.remainingMicros ?? 0n);
      assert.equal(
        left,
        ALLOWANCE - 72n * USDC,
        'float + remaining is the period’s allowance less what was paid',
      );
      assert.ok((await refilledMicros()) <= ALLOWANCE, 'never more redeemed in a period than its allowance');

      // More than the float and the rest of the period can pay: refused before any debit.
      const walletBefore = (await buyer.owner.api.get(`/api/v1/agent-wallets/${buyer.walletId}`)).body.data;
      const refused = await pay((Number(left + USDC) / 1e6).toFixed(6));
      assert.equal(refused.status, 503, refused.raw);
      const walletAfter = (await buyer.owner.api.get(`/api/v1/agent-wallets/${buyer.walletId}`)).body.data;
      assert.equal(walletAfter.balance, walletBefore.balance, 'nothing was debited');

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
      assert.equal((await balance(OUTSIDE)) - paidBefore, 72n * USDC + amount);
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
      expectError(await pay('3'), 503, 'SERVICE_UNAVAILABLE');
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
