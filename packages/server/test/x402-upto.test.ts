// x402 `upto` (metered prices) end to end on a real chain: a private anvil with the TestUSDC token, Permit2 and
// the upto proxy at their canonical addresses (test/support/permit2.ts), a metered API built from the x402
// packages' own upto server and facilitator (test/support/x402-upto-seller.ts), and the service on RAIL=evm paying
// it from an agent wallet. The maximum is decided and held, the settled amount debited and the rest returned — all
// judged by the chain; the treasury's Permit2 approval is the service's own transaction.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { x402Client } from '@x402/core/client';
import { x402UptoPermit2ProxyABI } from '@x402/evm';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Agent, fetch as undiciFetch } from 'undici';
import { type Address, getAddress, parseAbi } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { AgentWalletClient, x402Scheme } from '../../sdk/src/index.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { ManualClock } from '../src/clock.ts';
import { createPolicy, minus, tool, toolOk, type Wire } from './support/agent.ts';
import { ANVIL_MNEMONIC, anvilAvailable, anvilWalletClient, mine, rpc } from './support/anvil.ts';
import { CRASH_WAIT_MS, type CrashBuyer, startCrashBuyer } from './support/crash-buyer.ts';
import { type EvmWorld, evmEnv, fundedEvmBuyer, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, type TestUser } from './support/http.ts';
import {
  deployUptoContracts,
  installUptoProxy,
  PERMIT2_ADDRESS,
  UPTO_PROXY_ADDRESS,
} from './support/permit2.ts';
import type { ServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';
import { startUptoSeller, UPTO_FACILITATOR_INDEX, type UptoSeller } from './support/x402-upto-seller.ts';

const CONFIRMATIONS = 2;
const probe = await anvilAvailable();
const SELLER_PAY_TO = getAddress('0x00000000000000000000000000000000005e11e5') as Address;
/** The metered route's maximum: 2 USDC. */
const MAX_MICROS = 2_000_000n;
/** Past any deadline the service signs (at most 300 s). */
const PAST_DEADLINE_S = 400;

for (const target of await storeTargets()) {
  describe(`x402 upto on ${target.name}`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let h: Harness;
    let seller: UptoSeller;
    let owner: TestUser;
    let walletId: string;
    let key: string;
    const duties = () => h.services.chain!.duties;
    const settle = async () => {
      for (let i = 0; i < 3; i += 1) {
        await mine(world.anvil, CONFIRMATIONS);
        await duties().settleX402();
      }
    };
    /** The chain and this service's clock move on together (Permit2 judges the deadline by block time). */
    const passDeadline = async () => {
      await rpc(world.anvil, 'evm_increaseTime', [PAST_DEADLINE_S]);
      h.clock.advanceMs(PAST_DEADLINE_S * 1000);
      await settle();
    };
    const balance = async () => toolOk(await tool(h, key, 'check_balance', {}), 'check_balance').balance;
    const fetchMetered = (use: bigint, extra: Record<string, unknown> = {}) =>
      tool(h, key, 'x402_fetch', { url: `${seller.origin}/metered?use=${use}`, maxAmount: '2', ...extra });
    const historyOf = async (txId: string) => {
      const history = toolOk(await tool(h, key, 'get_tx_history', { limit: 100 }), 'get_tx_history');
      return history.transactions.find((t: Wire) => t.id === txId);
    };
    const paidToSeller = () => world.usdc.balanceOf(SELLER_PAY_TO);
    // Without keep-alive: a pooled socket's timers would outlive the suite.
    const dispatcher = new Agent({ pipelining: 0 });
    const plainFetch = (async (input: string | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
      const headers = Object.fromEntries(request.headers);
      return undiciFetch(request.url, { method: request.method, headers, body, dispatcher });
    }) as unknown as typeof fetch;

    before(async () => {
      world = await startEvmWorld();
      await deployUptoContracts(world.anvil);
      seller = await startUptoSeller(world, SELLER_PAY_TO, MAX_MICROS);
      h = await startHarness(target.name, 'x402_upto', {
        clock: new ManualClock(Date.now()),
        env: evmEnv(world, {
          CONFIRMATIONS: String(CONFIRMATIONS),
          X402_ALLOW_PRIVATE: 'true',
          WEBHOOK_ALLOW_PRIVATE: 'true',
        }),
      });
      ({ owner, walletId, key } = await fundedEvmBuyer(h, world, {
        masterMicros: 50_000_000n,
        fund: '20',
        confirmations: CONFIRMATIONS,
      }));
      const hook = await owner.api.post('/api/v1/webhooks', {
        url: `${seller.origin}/hook`,
        events: ['payment.completed'],
      });
      assert.equal(hook.status, 201, hook.raw);
    });
    after(async () => {
      await h?.close();
      await seller?.close();
      await world?.anvil.stop();
      await dispatcher.close();
    });
    beforeEach(async () => {
      seller.mode = 'normal';
      const policies = await owner.api.get(`/api/v1/agent-wallets/${walletId}/policies?limit=100`);
      for (const p of policies.body.data.items)
        await owner.api.delete(`/api/v1/agent-wallets/${walletId}/policies/${p.id}`);
    });

    // First: the treasury has not approved Permit2 yet.
    test('the treasury’s Permit2 approval is the service’s own transaction; until confirmed, 503 and nothing signed', async () => {
      const before = await balance();
      const refused = await fetchMetered(500_000n, { idempotencyKey: 'before-approval' });
      expectError(refused, 503, 'SERVICE_UNAVAILABLE');
      assert.match(refused.body.error.message, /Permit2/);
      assert.equal(seller.paidRequests, 0, 'no payment header reached the seller');
      assert.equal(await balance(), before, 'nothing was debited');
      const rows = await h.services.store.db
        .selectFrom('chain_outbox')
        .selectAll()
        .where('kind', '=', 'approve')
        .execute();
      assert.equal(rows.length, 1, 'one approval queued');
      // Asked again before it is on chain: still refused, no second approval.
      expectError(
        await fetchMetered(500_000n, { idempotencyKey: 'before-approval' }),
        503,
        'SERVICE_UNAVAILABLE',
      );
      await duties().send();
      await mine(world.anvil, CONFIRMATIONS);
      await duties().send();
      const approvals = await h.services.store.db
        .selectFrom('chain_outbox')
        .selectAll()
        .where('kind', '=', 'approve')
        .execute();
      assert.equal(approvals.length, 1);
      assert.equal(approvals[0]!.status, 'completed');
      const allowance = await world.usdc.publicClient.readContract({
        address: world.usdc.address,
        abi: parseAbi(['function allowance(address, address) view returns (uint256)']),
        functionName: 'allowance',
        args: [world.treasury, PERMIT2_ADDRESS],
      });
      assert.ok(allowance > 10n ** 70n, 'the treasury approved Permit2 for the maximum');
      // The same call now pays (the refusal stored nothing under its key).
      const paid = toolOk(await fetchMetered(500_000n, { idempotencyKey: 'before-approval' }), 'x402_fetch');
      assert.equal(paid.status, 200);
      await settle();
    });

    test('the maximum is held, the settled amount debited, the rest returned in the same ending', async () => {
      const before = await balance();
      const sellerBefore = await paidToSeller();
      const data = toolOk(await fetchMetered(750_000n, { idempotencyKey: 'metered-1' }), 'x402_fetch');
      assert.equal(data.status, 200);
      assert.deepEqual(JSON.parse(data.body), { rows: 42, usedMicros: '750000' });
      assert.equal(data.payment.protocol, 'x402');
      assert.equal(data.payment.scheme, 'upto');
      assert.equal(data.payment.status, 'processing', 'not yet confirmed');
      assert.equal(data.payment.amount, '2.000000', 'while processing, the amount is the maximum');
      assert.equal(data.payment.authorizedAmount, '2.000000');
      assert.match(data.payment.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await balance(), minus(before, '2'), 'the maximum is held');
      const row = await h.services.store.db
        .selectFrom('x402_payments')
        .select(['state', 'authorization'])
        .where('transaction_id', '=', data.payment.txId)
        .executeTakeFirstOrThrow();
      // Not 'signed': an earlier release's settlement duty (a rolling upgrade) reads only EIP-3009 rows.
      assert.deepEqual(row, { state: 'permit_signed', authorization: 'permit2' });
      assert.equal(await paidToSeller(), sellerBefore + 750_000n, 'the chain moved what was used');
      await settle();
      const tx = await historyOf(data.payment.txId);
      assert.equal(tx.status, 'completed');
      assert.equal(tx.amount, '0.750000');
      assert.equal(tx.authorizedAmount, '2.000000');
      assert.equal(tx.scheme, 'upto');
      assert.equal(tx.txHash, data.payment.txHash);
      assert.equal(await balance(), minus(before, '0.75'), 'the rest is back');
      const replay = toolOk(await fetchMetered(750_000n, { idempotencyKey: 'metered-1' }), 'x402_fetch');
      assert.equal(replay.body, data.body);
      assert.equal(replay.payment.amount, '0.750000', 'a replay shows the payment as it is now');
      assert.equal(replay.payment.authorizedAmount, '2.000000');
      assert.equal(await paidToSeller(), sellerBefore + 750_000n, 'a replay pays nothing');
      const entries = await h.services.store.db
        .selectFrom('ledger_transactions')
        .select('kind')
        .where('reference_id', '=', data.payment.txId)
        .execute();
      assert.ok(
        entries.some((e) => e.kind === 'x402_upto_return'),
        'the rest went back through the ledger',
      );
      await assertLedgerOk(h);
    });

    test('settled for 0: held until the deadline, then completed for 0.000000 with everything back', async () => {
      const before = await balance();
      const sellerBefore = await paidToSeller();
      const data = toolOk(await fetchMetered(0n, { idempotencyKey: 'metered-0' }), 'x402_fetch');
      assert.equal(data.status, 200);
      assert.equal(data.payment.status, 'processing');
      assert.equal(data.payment.txHash, null, 'nothing moved on chain');
      await settle();
      assert.equal(
        await balance(),
        minus(before, '2'),
        'held until the deadline: the permit could still be used',
      );
      await passDeadline();
      const tx = await historyOf(data.payment.txId);
      assert.equal(tx.status, 'completed');
      assert.equal(tx.amount, '0.000000');
      assert.equal(tx.authorizedAmount, '2.000000');
      assert.equal(await balance(), before, 'everything is back');
      assert.equal(await paidToSeller(), sellerBefore);
      await assertLedgerOk(h);
    });

    test('a seller that answers 402 again after payment: no second payment, the hold back after the deadline', async () => {
      seller.mode = 'again';
      const before = await balance();
      const paidBefore = seller.paidRequests;
      const reply = await fetchMetered(500_000n, { idempotencyKey: 'again-1' });
      expectError(reply, 502, 'X402_UPSTREAM_ERROR');
      assert.equal(reply.body.data.payment.status, 'processing');
      assert.equal(reply.body.data.payment.amount, '2.000000');
      assert.equal(seller.paidRequests, paidBefore + 1, 'asked once with the payment');
      expectError(await fetchMetered(500_000n, { idempotencyKey: 'again-1' }), 502, 'X402_UPSTREAM_ERROR');
      assert.equal(seller.paidRequests, paidBefore + 1, 'a retry replays, never pays again');
      assert.equal(await balance(), minus(before, '2'), 'held until the deadline');
      await passDeadline();
      assert.equal(await balance(), before, 'unused by its deadline: all of it is back');
      assert.equal((await historyOf(reply.body.data.payment.txId)).status, 'failed');
    });

    test('a seller that never settles (it said it did): failed at the deadline, all of it back', async () => {
      seller.mode = 'never';
      const before = await balance();
      const sellerBefore = await paidToSeller();
      const owedBefore = (await expectChainClean()).liabilitiesMicros;
      const data = toolOk(await fetchMetered(1_000_000n, { idempotencyKey: 'never-1' }), 'x402_fetch');
      assert.equal(data.status, 200);
      assert.equal(data.payment.status, 'processing');
      await settle();
      assert.equal(await balance(), minus(before, '2'));
      // In flight, verify-ledger --chain counts it at its maximum: the wallet is down by 2, still owed.
      assert.equal((await expectChainClean()).liabilitiesMicros, owedBefore);
      await passDeadline();
      assert.equal(await balance(), before);
      const tx = await historyOf(data.payment.txId);
      assert.equal(tx.status, 'failed');
      assert.equal(tx.amount, '2.000000');
      assert.equal(await paidToSeller(), sellerBefore);
    });

    test('a seller that settles late: completed for what it settled once the chain shows it', async () => {
      seller.mode = 'late';
      seller.kept.length = 0;
      const before = await balance();
      const sellerBefore = await paidToSeller();
      const data = toolOk(await fetchMetered(1_200_000n, { idempotencyKey: 'late-1' }), 'x402_fetch');
      assert.equal(data.payment.status, 'processing');
      await settle();
      assert.equal(await balance(), minus(before, '2'), 'nothing on chain yet: still held');
      const owedHeld = (await expectChainClean()).liabilitiesMicros;
      const settled = await seller.settleKept(0, 1_200_000n);
      assert.equal(settled.success, true, JSON.stringify(settled));
      // In flight and already used: counted at the maximum less what moved (the rest is still owed).
      assert.equal((await expectChainClean()).liabilitiesMicros, owedHeld - 1_200_000n);
      await settle();
      const tx = await historyOf(data.payment.txId);
      assert.equal(tx.status, 'completed');
      assert.equal(tx.amount, '1.200000');
      assert.equal(
        tx.txHash,
        settled.transaction.toLowerCase(),
        'found on chain without the seller naming it',
      );
      assert.equal(await balance(), minus(before, '1.2'));
      assert.equal(await paidToSeller(), sellerBefore + 1_200_000n);
      await assertLedgerOk(h);
    });

    test('a settlement above the maximum is refused on chain — by the proxy and by Permit2 itself', async () => {
      seller.mode = 'late';
      seller.kept.length = 0;
      const before = await balance();
      const sellerBefore = await paidToSeller();
      const data = toolOk(await fetchMetered(MAX_MICROS, { idempotencyKey: 'greedy-1' }), 'x402_fetch');
      assert.equal(data.payment.status, 'processing');
      // The facilitator's own library refuses more than the maximum before touching the chain …
      const refused = await seller.settleKept(0, MAX_MICROS + 1n);
      assert.equal(refused.success, false);
      // … so a greedy facilitator goes to the chain itself: the proxy reverts, and so does Permit2 without it.
      const { payload } = seller.kept[0]!;
      const permit = (payload.payload as { permit2Authorization: Wire; signature: `0x${string}` })
        .permit2Authorization;
      const signature = (payload.payload as { signature: `0x${string}` }).signature;
      const facilitator = anvilWalletClient(
        world.anvil,
        mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: UPTO_FACILITATOR_INDEX }),
      );
      const greedy = async () => {
        const hash = await facilitator.writeContract({
          address: UPTO_PROXY_ADDRESS,
          abi: x402UptoPermit2ProxyABI,
          functionName: 'settle',
          args: [
            {
              permitted: { token: permit.permitted.token, amount: BigInt(permit.permitted.amount) },
              nonce: BigInt(permit.nonce),
              deadline: BigInt(permit.deadline),
            },
            MAX_MICROS + 1n,
            permit.from,
            { to: permit.witness.to, facilitator: permit.witness.facilitator, validAfter: 0n },
            signature,
          ],
          gas: 300_000n,
        });
        return world.usdc.publicClient.waitForTransactionReceipt({ hash });
      };
      assert.equal((await greedy()).status, 'reverted', 'the proxy refuses more than permitted');
      await installUptoProxy(world.anvil, { checksAmount: false });
      try {
        assert.equal((await greedy()).status, 'reverted', 'Permit2 refuses more than the signed maximum');
      } finally {
        await installUptoProxy(world.anvil, { checksAmount: true });
      }
      assert.equal(await paidToSeller(), sellerBefore, 'nothing moved');
      await passDeadline();
      assert.equal(await balance(), before, 'unused by its deadline: all of it is back');
      assert.equal((await historyOf(data.payment.txId)).status, 'failed');
    });

    test('policies are decided on the maximum: a cap below it denies even a small use; nothing signed', async () => {
      await createPolicy(owner, walletId, 'spend_cap_per_tx', { limit: '1.5' });
      const before = await balance();
      const paidBefore = seller.paidRequests;
      const reply = await fetchMetered(100_000n, { idempotencyKey: 'capped-1' });
      expectError(reply, 422, 'POLICY_DENIED');
      assert.equal(seller.paidRequests, paidBefore, 'no payment header reached the seller');
      assert.equal(await balance(), before);
      const answer = await fetch(`${seller.origin}/metered`);
      const required = JSON.parse(Buffer.from(answer.headers.get('payment-required')!, 'base64').toString());
      const checked = toolOk(
        await tool(h, key, 'check_payment', { paymentRequirements: required }),
        'check_payment',
      );
      assert.equal(checked.allowed, false, 'check_payment judges the maximum too');
      const tooHigh = await tool(h, key, 'x402_fetch', {
        url: `${seller.origin}/metered?use=1`,
        maxAmount: '1.999999',
        idempotencyKey: 'too-high',
      });
      expectError(tooHigh, 422, 'X402_PRICE_TOO_HIGH');
    });

    test('above the approval threshold (on the maximum): pending; approved, the same call pays once', async () => {
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '1' });
      const before = await balance();
      const sellerBefore = await paidToSeller();
      const first = toolOk(await fetchMetered(300_000n, { idempotencyKey: 'needs-ok' }), 'x402_fetch');
      assert.equal(first.status, 402);
      assert.equal(first.payment.status, 'pending');
      const approved = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${first.payment.txId}/approve`,
        {},
      );
      assert.equal(approved.status, 200, approved.raw);
      const paid = toolOk(await fetchMetered(300_000n, { idempotencyKey: 'needs-ok' }), 'x402_fetch');
      assert.equal(paid.status, 200, JSON.stringify(paid));
      assert.equal(paid.payment.txId, first.payment.txId);
      const again = toolOk(await fetchMetered(300_000n, { idempotencyKey: 'needs-ok' }), 'x402_fetch');
      assert.equal(again.body, paid.body);
      await settle();
      assert.equal(await paidToSeller(), sellerBefore + 300_000n, 'paid once');
      assert.equal(await balance(), minus(before, '0.3'));
    });

    test('x402_sign: a Permit2 authorization for the maximum, validBefore its deadline; the seller takes it', async () => {
      const answer = await fetch(`${seller.origin}/metered?use=400000`);
      assert.equal(answer.status, 402);
      const required = JSON.parse(Buffer.from(answer.headers.get('payment-required')!, 'base64').toString());
      const before = await balance();
      const signed = toolOk(
        await tool(h, key, 'x402_sign', { paymentRequirements: required, idempotencyKey: 'sign-upto' }),
        'x402_sign',
      );
      assert.equal(signed.amount, '2.000000', 'the maximum');
      const permit = signed.payload.payload.permit2Authorization;
      assert.equal(signed.validBefore, Number(permit.deadline), 'validBefore is the Permit2 deadline');
      assert.equal(permit.spender, UPTO_PROXY_ADDRESS);
      assert.equal(permit.permitted.amount, MAX_MICROS.toString());
      assert.equal(permit.witness.facilitator, seller.facilitator);
      assert.equal(permit.witness.to, SELLER_PAY_TO);
      const same = toolOk(
        await tool(h, key, 'x402_sign', { paymentRequirements: required, idempotencyKey: 'sign-upto' }),
        'x402_sign',
      );
      assert.equal(same.header, signed.header, 'the same key gives the same authorization');
      assert.equal(await balance(), minus(before, '2'));
      const paid = await fetch(`${seller.origin}/metered?use=400000`, {
        headers: { 'payment-signature': signed.header },
      });
      assert.equal(paid.status, 200, await paid.clone().text());
      await settle();
      const tx = await historyOf(signed.txId);
      assert.equal(tx.status, 'completed');
      assert.equal(tx.amount, '0.400000');
      assert.equal(await balance(), minus(before, '0.4'));
    });

    test('paid_fetch pays an upto offer the same way: held at the maximum, settled for what was used', async () => {
      const before = await balance();
      const data = toolOk(
        await tool(h, key, 'paid_fetch', {
          url: `${seller.origin}/metered?use=250000`,
          maxAmount: '2',
          idempotencyKey: 'paid-fetch-upto',
        }),
        'paid_fetch',
      );
      assert.equal(data.status, 200);
      assert.equal(data.payment.protocol, 'x402');
      assert.equal(data.payment.scheme, 'upto');
      assert.equal(data.payment.amount, '2.000000');
      assert.equal(data.payment.authorizedAmount, '2.000000');
      await settle();
      const tx = await historyOf(data.payment.txId);
      assert.equal(tx.amount, '0.250000');
      assert.equal(await balance(), minus(before, '0.25'));
    });

    test('@x402/fetch with the SDK’s signer adapter (scheme upto) pays the metered API, under the same policies', async () => {
      const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
      const agent = new AgentWalletClient({ baseUrl, apiKey: key, fetch: plainFetch as never });
      const network = `eip155:${world.anvil.chainId}` as const;
      // The test token is no default asset of @x402's client-side spend controls; the wallet's policies are
      // the spend controls here (they deny below).
      const client = x402Client.fromConfig({
        schemes: [
          { network, client: x402Scheme(agent, { scheme: 'upto', memo: 'metered via @x402/fetch' }) },
        ],
        spendControls: false,
      });
      const paidFetch = wrapFetchWithPayment(plainFetch, client);
      const before = await balance();
      const sellerBefore = await paidToSeller();
      const answer = await paidFetch(`${seller.origin}/metered?use=350000`);
      assert.equal(answer.status, 200, await answer.clone().text());
      assert.deepEqual(await answer.json(), { rows: 42, usedMicros: '350000' });
      assert.equal(await paidToSeller(), sellerBefore + 350_000n, 'the seller settled what was used');
      assert.equal(await balance(), minus(before, '2'), 'the maximum is held until the chain says');
      await settle();
      const latest = (await agent.getTxHistory({ limit: 1 })).transactions[0]!;
      assert.equal(latest.scheme, 'upto');
      assert.equal(latest.status, 'completed');
      assert.equal(latest.amount, '0.350000');
      assert.equal(latest.authorizedAmount, '2.000000');
      assert.equal(latest.memo, 'metered via @x402/fetch');
      assert.equal(await balance(), minus(before, '0.35'), 'the rest is back');
      // The exact adapter alone has no client for the offer: x402's own client refuses before anything is signed.
      const exactOnly = x402Client.fromConfig({
        schemes: [{ network, client: x402Scheme(agent) }],
        spendControls: false,
      });
      await assert.rejects(wrapFetchWithPayment(plainFetch, exactOnly)(`${seller.origin}/metered?use=1`));
      await createPolicy(owner, walletId, 'spend_cap_per_tx', { limit: '1.5' });
      await assert.rejects(paidFetch(`${seller.origin}/metered?use=1`), /denied|POLICY_DENIED|policy/i);
      assert.equal(await paidToSeller(), sellerBefore + 350_000n, 'paid once');
      assert.equal(await balance(), minus(before, '0.35'), 'nothing held for the denied one');
    });

    test('webhooks and history show authorized vs settled', async () => {
      const events = await h.services.store.db
        .selectFrom('webhook_events')
        .select('data_json')
        .where('type', '=', 'payment.completed')
        .execute();
      const upto = events.map((e) => JSON.parse(e.data_json)).filter((d) => d.scheme === 'upto');
      assert.ok(upto.length > 0, 'payment.completed events of upto payments');
      const partial = upto.find((d) => d.amount === '0.750000');
      assert.equal(partial?.authorizedAmount, '2.000000');
      assert.equal(partial?.protocol, 'x402');
    });

    test('verify-ledger --chain matches every settlement', async () => {
      await settle();
      await expectChainClean();
      await assertLedgerOk(h);
    });

    async function expectChainClean() {
      const report = await reconcileChain(
        h.services.store.db,
        h.services.chain!.rail.client,
        h.services.chain!.rail.config,
        h.services.chain!.rail.treasuryAddress,
      );
      assert.deepEqual(report.problems, []);
      return report;
    }
  });
}

describe('x402 upto: SIGKILL after signing', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let seller: UptoSeller;
  let buyer: CrashBuyer;
  const PAY_TO = getAddress('0x000000000000000000000000000000000000c4a6') as Address;
  const fetchMetered = (s: ServiceProcess, idempotencyKey: string) =>
    request(s.url, 'POST', '/mcp/v1/tools/x402_fetch', buyer.agentKey, {
      params: { url: `${seller.origin}/metered?use=600000`, maxAmount: '2', idempotencyKey },
    });

  before(async () => {
    world = await startEvmWorld();
    await deployUptoContracts(world.anvil);
    seller = await startUptoSeller(world, PAY_TO, MAX_MICROS);
    // The first upto payment asks for the treasury's Permit2 approval; the running service sends it.
    buyer = await startCrashBuyer(world, 'upto-crash', async (s, prepared) => {
      buyer = prepared;
      const refused = await fetchMetered(s, 'approval-first');
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      await waitFor(
        'the treasury approved Permit2',
        async () =>
          (await world.usdc.publicClient.readContract({
            address: world.usdc.address,
            abi: parseAbi(['function allowance(address, address) view returns (uint256)']),
            functionName: 'allowance',
            args: [world.treasury, PERMIT2_ADDRESS],
          })) > 0n,
        CRASH_WAIT_MS,
      );
    });
  });
  after(async () => {
    await buyer?.close();
    await seller?.close();
    await world?.anvil.stop();
  });

  test('the retry after a restart re-sends the same permit: paid once, the rest back once settled', async () => {
    const s = await buyer.start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    const first = await fetchMetered(s, 'crash-1').catch((error: unknown) => error);
    assert.ok(first instanceof Error, 'the process died before answering');
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', CRASH_WAIT_MS);
    assert.equal(seller.paidRequests, 0, 'the seller never saw the signed payment');
    const restarted = await buyer.start();
    assert.equal(await buyer.balanceOf(restarted), '48.000000', 'the maximum held once, before signing');
    const paid = await fetchMetered(restarted, 'crash-1');
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data.status, 200);
    assert.equal(seller.paidRequests, 1);
    const transfers = await buyer.transfersTo(PAY_TO);
    assert.equal(transfers.length, 1, 'exactly one transfer on chain');
    assert.equal(transfers[0]!.args.value, 600_000n);
    const replay = await fetchMetered(restarted, 'crash-1');
    assert.equal(replay.body.data.payment.txId, paid.body.data.payment.txId);
    assert.equal(seller.paidRequests, 1, 'a replay asks nothing');
    await mine(world.anvil, 2);
    await waitFor(
      'the rest is back',
      async () => (await buyer.balanceOf(restarted)) === '49.400000',
      CRASH_WAIT_MS,
    );
    await restarted.stop();
    const verified = buyer.verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });
});
