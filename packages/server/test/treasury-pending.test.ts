// Agents' payments the bounded treasury cannot cover without its owners (contract section 14): on anvil with the
// framework's npm bytecode, a payment above the float and the remaining allowance is recorded `pending` with the
// reason in words, its amount held, and an owners' request written with it — once, whatever the retries. Signed
// at the threshold and confirmed, a plain payment completes (the owners' account pays the payee) and an x402
// payment becomes payable (the owners topped up the float; the same call with the same key pays, once); unsigned
// for 7 days, or declined, the hold goes back. Chain and ledger agree throughout.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { type Address, getAddress, type Hex } from 'viem';
import { OWNERS_SIGNATURES_MAX_AGE_MS } from '../src/chain/bounded/bounded.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { OWNERS_WAIT_REASON } from '../src/domain/money/treasury-cover.ts';
import { tool, toolOk } from './support/agent.ts';
import { anvilAvailable, mine, rpc } from './support/anvil.ts';
import { owners, startBoundedWorld } from './support/bounded.ts';
import { type EvmWorld, fundedEvmBuyer } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, storeTargets } from './support/harness.ts';
import { stepUpWithPassword, type TestUser } from './support/http.ts';
import { startMppSeller } from './support/mpp-seller.ts';
import { type Seller, startSeller } from './support/x402-seller.ts';

const probe = await anvilAvailable();
const USDC = 1_000_000n;
const SELLER = getAddress('0x00000000000000000000000000000000005e11e5') as Address;
const MPP_SELLER = getAddress('0x00000000000000000000000000000000005e11e6') as Address;
const [PAYEE, EXPIRED, DECLINED, SMALL] = ['a5', 'b6', 'c7', 'd8'].map(
  (x) => getAddress(`0x${x.repeat(20)}`) as Address,
) as [Address, Address, Address, Address];

for (const target of await storeTargets()) {
  describe(`agents' payments waiting for the owners on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let account: Address;
    let seller: Seller;
    let owner: TestUser;
    let walletId: string;
    let key: string;
    const rail = () => h.services.chain!.rail;
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await h.services.chain!.duties.send();
        await mine(world.anvil, 1);
        await h.services.chain!.duties.settleX402();
      }
    };
    const balances = async () => {
      const data = toolOk(await tool(h, key, 'check_balance', {}), 'check_balance');
      return { balance: data.balance as string, held: data.heldBalance as string };
    };
    const payment = async (id: string) =>
      (await owner.api.get(`/api/v1/agent-wallets/${walletId}/transactions/${id}`)).body.data;
    const requestsOf = (transactionId: string) =>
      h.services.store.db
        .selectFrom('treasury_signature_requests')
        .select(['id', 'status', 'to_address', 'amount_micros'])
        .where('transaction_id', '=', transactionId)
        .execute();
    /** Owners 1 and 3 sign the payment's request over HTTP, as the organization's owner hands them in. */
    const ownersSign = async (transactionId: string, signers = [owners[0]!, owners[2]!]) => {
      const request = (await h.services.chain!.owners!.requestFor(transactionId))!;
      let last: { status: number; raw: string; body: { data: { status: string } } } | undefined;
      for (const signer of signers) {
        const signature: Hex = await signer.signTypedData(request.signRequest.typedData as never);
        last = await owner.api.post('/api/v1/wallet/treasury/signatures', { id: transactionId, signature });
        assert.equal(last.status, 200, last.raw);
      }
      return last!.body.data;
    };
    const proveReserves = async () => {
      await assertLedgerOk(h);
      const proof = await reconcileChain(
        h.services.store.db,
        rail().client,
        rail().config,
        rail().keys.treasury.address.toLowerCase(),
        account.toLowerCase(),
      );
      assert.ok(proof.ok, proof.problems.join('; '));
    };

    before(async () => {
      ({ world, h, account } = await startBoundedWorld(target.name, 'treasury_pending', {
        allowance: '100',
        floatMax: '40',
        fundMicros: 1_000n * USDC,
        env: { X402_ALLOW_PRIVATE: 'true' },
      }));
      // The seller's facilitator judges an authorization's validity by the real time: the service's clock is now.
      h.clock.advanceMs(Math.max(0, Date.now() - h.clock.nowMs()));
      seller = await startSeller(world, SELLER, { reportMicros: 55n * USDC, echoMicros: USDC });
      ({ owner, walletId, key } = await fundedEvmBuyer(h, world, {
        masterMicros: 900n * USDC,
        fund: '700',
        confirmations: 1,
      }));
      await rounds(3);
    });
    after(async () => {
      await h?.close();
      await seller?.close();
      await world?.anvil.stop();
    });

    test('a payment the allowance covers is paid from the float as before', async () => {
      const paid = toolOk(
        await tool(h, key, 'send_payment', { toAddress: SMALL, amount: '5', idempotencyKey: 'small-1' }),
        'send_payment',
      );
      assert.equal(paid.status, 'processing');
      assert.equal(paid.reason, undefined);
      assert.deepEqual(await requestsOf(paid.txId), []);
      await rounds(3);
      assert.equal((await payment(paid.txId)).status, 'completed');
      assert.equal(await world.usdc.balanceOf(SMALL), 5n * USDC);
    });

    test('a plain payment above the allowance waits pending with its reason, held once; the owners sign, the account pays it', async () => {
      const before = await balances();
      const asked = { toAddress: PAYEE, amount: '150', memo: 'big invoice', idempotencyKey: 'big-1' };
      const first = toolOk(await tool(h, key, 'send_payment', asked), 'send_payment');
      assert.equal(first.status, 'pending');
      assert.equal(first.reason, OWNERS_WAIT_REASON);
      const again = toolOk(await tool(h, key, 'send_payment', asked), 'send_payment');
      assert.equal(again.txId, first.txId, 'a retry with the key answers the same payment');
      const requests = await requestsOf(first.txId);
      assert.equal(requests.length, 1, 'one owners’ request, whatever the retries');
      assert.equal(requests[0]!.to_address, PAYEE.toLowerCase(), 'a transfer straight to the payee');
      assert.equal(requests[0]!.amount_micros, 150n * USDC);
      const held = await balances();
      assert.equal(Number(held.balance), Number(before.balance) - 150);
      assert.equal(Number(held.held), Number(before.held) + 150);
      const shown = await payment(first.txId);
      assert.equal(shown.status, 'pending');
      assert.equal(shown.reason, OWNERS_WAIT_REASON);

      const approve = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${first.txId}/approve`,
        {},
      );
      assert.equal(approve.status, 409, approve.raw);
      assert.equal(approve.body.error.code, 'INVALID_STATE');
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(PAYEE), 0n, 'nothing moves before the owners sign');

      const accountBefore = await world.usdc.balanceOf(account);
      const signed = await ownersSign(first.txId);
      assert.equal(signed.status, 'submitted');
      await rounds(3);
      const done = await payment(first.txId);
      assert.equal(done.status, 'completed');
      assert.match(done.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await world.usdc.balanceOf(PAYEE), 150n * USDC, 'paid once');
      assert.ok(accountBefore - (await world.usdc.balanceOf(account)) >= 150n * USDC);
      assert.deepEqual(await balances(), { balance: held.balance, held: before.held });
      assert.equal((await requestsOf(first.txId))[0]!.status, 'completed');
      await proveReserves();
    });

    test('an x402 payment above the allowance answers payment pending; once the owners sign, the same call pays once', async () => {
      const call = () =>
        tool(h, key, 'x402_fetch', {
          url: `${seller.origin}/report`,
          maxAmount: '60',
          idempotencyKey: 'x-1',
        });
      const paidBefore = seller.paidRequests().length;
      const first = toolOk(await call(), 'x402_fetch');
      assert.equal(first.status, 402);
      assert.equal(first.payment.status, 'pending');
      assert.equal(first.payment.amount, '55.000000');
      const txId: string = first.payment.txId;
      assert.equal((await payment(txId)).reason, OWNERS_WAIT_REASON);
      const again = toolOk(await call(), 'x402_fetch');
      assert.equal(again.payment.txId, txId);
      assert.equal(again.payment.status, 'pending');
      assert.equal(seller.paidRequests().length, paidBefore, 'nothing signed while the owners have not');
      const requests = await requestsOf(txId);
      assert.equal(requests.length, 1);
      assert.equal(
        requests[0]!.to_address,
        rail().keys.treasury.address.toLowerCase(),
        'a top-up of the float, which signs the authorization',
      );

      await ownersSign(txId, [owners[1]!, owners[2]!]);
      await rounds(3);
      assert.equal((await payment(txId)).status, 'processing', 'debited, payable by the agent’s retry');
      const paid = toolOk(await call(), 'x402_fetch');
      assert.equal(paid.status, 200, JSON.stringify(paid));
      assert.equal(paid.payment.txId, txId);
      assert.equal(seller.paidRequests().length, paidBefore + 1);
      assert.equal(await world.usdc.balanceOf(SELLER), 55n * USDC);
      const replay = toolOk(await call(), 'x402_fetch');
      assert.equal(replay.status, 200);
      assert.equal(seller.paidRequests().length, paidBefore + 1, 'the same call never pays twice');
      await rounds(3);
      assert.equal((await payment(txId)).status, 'completed');
      assert.equal(await world.usdc.balanceOf(SELLER), 55n * USDC);
      await proveReserves();
    });

    test('paid_fetch of an MPP charge above the allowance waits for the owners; once they sign, the same call pays once', async () => {
      const mpp = await startMppSeller(world, MPP_SELLER, { reportPrice: '60' });
      try {
        const call = () =>
          tool(h, key, 'paid_fetch', {
            url: `${mpp.origin}/report`,
            maxAmount: '70',
            idempotencyKey: 'mpp-1',
          });
        const first = toolOk(await call(), 'paid_fetch');
        assert.equal(first.status, 402);
        assert.equal(first.payment.status, 'pending');
        assert.equal(first.payment.protocol, 'mpp');
        const txId: string = first.payment.txId;
        assert.equal(toolOk(await call(), 'paid_fetch').payment.txId, txId);
        assert.equal((await requestsOf(txId)).length, 1);
        assert.equal(mpp.paidRequests().length, 0);

        await ownersSign(txId);
        await rounds(3);
        const paid = toolOk(await call(), 'paid_fetch');
        assert.equal(paid.status, 200, JSON.stringify(paid));
        assert.equal(toolOk(await call(), 'paid_fetch').status, 200);
        assert.equal(mpp.paidRequests().length, 1, 'paid once');
        await rounds(3);
        assert.equal((await payment(txId)).status, 'completed');
        assert.equal(await world.usdc.balanceOf(MPP_SELLER), 60n * USDC);
        await proveReserves();
      } finally {
        await mpp.close();
      }
    });

    test('x402_sign above the allowance: no header while pending; once the owners sign, the same call signs one authorization', async () => {
      // Without keep-alive: a pooled socket would outlive the suite.
      const dispatcher = new Agent({ pipelining: 0 });
      const answer = await undiciFetch(`${seller.origin}/report`, { dispatcher });
      await dispatcher.close();
      assert.equal(answer.status, 402);
      const required = JSON.parse(
        Buffer.from(answer.headers.get('payment-required')!, 'base64').toString('utf8'),
      );
      const params = { paymentRequirements: required, idempotencyKey: 'sign-1' };
      const before = await balances();
      const pending = toolOk(await tool(h, key, 'x402_sign', params), 'x402_sign');
      assert.equal(pending.status, 'pending');
      assert.equal(pending.header, null, 'nothing signed while the owners have not');
      assert.equal((await payment(pending.txId)).reason, OWNERS_WAIT_REASON);
      assert.equal(toolOk(await tool(h, key, 'x402_sign', params), 'x402_sign').txId, pending.txId);
      assert.equal((await requestsOf(pending.txId)).length, 1);

      await ownersSign(pending.txId);
      await rounds(3);
      const signed = toolOk(await tool(h, key, 'x402_sign', params), 'x402_sign');
      assert.equal(signed.status, 'processing');
      assert.equal(typeof signed.header, 'string');
      const same = toolOk(await tool(h, key, 'x402_sign', params), 'x402_sign');
      assert.equal(same.header, signed.header, 'one authorization, however often asked');
      assert.equal(Number((await balances()).balance), Number(before.balance) - 55);
      // Never used by the seller: once it expires (chain time and the service's clock together) the money is back.
      await rpc(world.anvil, 'evm_increaseTime', [400]);
      h.clock.advanceMs(400_000);
      await rounds(3);
      assert.equal((await payment(pending.txId)).status, 'failed');
      assert.deepEqual(await balances(), before);
      await proveReserves();
    });

    test('declined by the owners: rejected, its hold back; a late signature changes nothing', async () => {
      const before = await balances();
      const asked = { toAddress: DECLINED, amount: '170', idempotencyKey: 'declined-1' };
      const pending = toolOk(await tool(h, key, 'send_payment', asked), 'send_payment');
      assert.equal(pending.status, 'pending');
      const rejected = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${pending.txId}/reject`,
        { reason: 'not this month' },
      );
      assert.equal(rejected.status, 200, rejected.raw);
      assert.equal(rejected.body.data.status, 'rejected');
      assert.deepEqual(await balances(), before);
      assert.equal((await requestsOf(pending.txId))[0]!.status, 'failed');
      const request = (await h.services.chain!.owners!.requestFor(pending.txId))!;
      await stepUpWithPassword(owner); // earlier tests moved the clock past the step-up window
      const late = await owner.api.post('/api/v1/wallet/treasury/signatures', {
        id: pending.txId,
        signature: await owners[0]!.signTypedData(request.signRequest.typedData as never),
      });
      assert.equal(late.status, 200, late.raw);
      assert.equal(late.body.data.status, 'failed', late.raw);
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(DECLINED), 0n);
      await proveReserves();
    });

    test('unsigned for 7 days: expired, its hold back; retries never make a second request', async () => {
      const before = await balances();
      const asked = { toAddress: EXPIRED, amount: '180', idempotencyKey: 'expired-1' };
      const pending = toolOk(await tool(h, key, 'send_payment', asked), 'send_payment');
      assert.equal(pending.status, 'pending');
      const retried = toolOk(await tool(h, key, 'send_payment', asked), 'send_payment');
      assert.equal(retried.txId, pending.txId);
      const request = (await h.services.chain!.owners!.requestFor(pending.txId))!;
      await stepUpWithPassword(owner);
      const signed = await owner.api.post('/api/v1/wallet/treasury/signatures', {
        id: pending.txId,
        signature: await owners[0]!.signTypedData(request.signRequest.typedData as never),
      });
      assert.equal(signed.status, 200, signed.raw);
      assert.equal(signed.body.data.status, 'awaiting_signatures', 'one owner of two: it still waits');
      h.clock.advanceMs(OWNERS_SIGNATURES_MAX_AGE_MS - 60_000);
      await rounds(1);
      assert.equal((await requestsOf(pending.txId))[0]!.status, 'awaiting_signatures', 'not yet');
      h.clock.advanceMs(120_000);
      await rounds(1);
      const ended = await h.services.store.db
        .selectFrom('transactions')
        .select('status')
        .where('id', '=', pending.txId)
        .executeTakeFirstOrThrow();
      assert.equal(ended.status, 'expired');
      assert.deepEqual(await balances(), before, 'the hold is back');
      const requests = await requestsOf(pending.txId);
      assert.equal(requests.length, 1);
      assert.equal(requests[0]!.status, 'failed');
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(EXPIRED), 0n);
      await proveReserves();
    });
  });
}
