// x402 end to end on a real chain: a private anvil with the TestUSDC token, a paid API built from the protocol's
// own packages (@x402/express + @x402/core's facilitator + @x402/evm), and the service on RAIL=evm paying it
// from an agent wallet under the wallet's policies. The seller logs every request, so "nothing was paid" is
// checked on the wire and on chain, not only in the ledger.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { x402Client } from '@x402/core/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Agent, fetch as undiciFetch } from 'undici';
import { type Address, getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { AgentWalletClient, x402Scheme } from '../../sdk/src/index.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { ManualClock } from '../src/clock.ts';
import { APPROVED_UNUSED_MS } from '../src/services/x402/settle.ts';
import { createPolicy, minus, tool, toolOk, type Wire } from './support/agent.ts';
import { anvilAvailable, anvilWalletClient, mine, revert, rpc, snapshot } from './support/anvil.ts';
import { type EvmWorld, evmEnv, fundedEvmBuyer, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, type TestUser } from './support/http.ts';
import { type Seller, startSeller } from './support/x402-seller.ts';

const CONFIRMATIONS = 2;
const probe = await anvilAvailable();
const SELLER_PAY_TO = getAddress('0x00000000000000000000000000000000005e11e4') as Address;
const REPORT_MICROS = 1_500_000n;
const ELSEWHERE = getAddress('0x00000000000000000000000000000000000e15e0') as Address;
const ECHO_MICROS = 500_000n;

for (const target of await storeTargets()) {
  describe(`x402 on ${target.name}`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let h: Harness;
    let seller: Seller;
    let owner: TestUser;
    let walletId: string;
    let key: string;
    const duties = () => h.services.chain!.duties;
    // Without keep-alive: a pooled socket's timers would outlive the suite.
    const dispatcher = new Agent({ pipelining: 0 });
    const plainFetch = (async (input: string | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
      const headers = Object.fromEntries(request.headers);
      return undiciFetch(request.url, { method: request.method, headers, body, dispatcher });
    }) as unknown as typeof fetch;
    const settle = async () => {
      for (let i = 0; i < 3; i += 1) {
        await mine(world.anvil, CONFIRMATIONS);
        await duties().settleX402();
      }
    };
    const balance = async () => toolOk(await tool(h, key, 'check_balance', {}), 'check_balance').balance;
    const fetchReport = (extra: Record<string, unknown> = {}) =>
      tool(h, key, 'x402_fetch', { url: `${seller.origin}/report`, maxAmount: '2', ...extra });

    before(async () => {
      world = await startEvmWorld();
      seller = await startSeller(world, SELLER_PAY_TO, {
        reportMicros: REPORT_MICROS,
        echoMicros: ECHO_MICROS,
      });
      h = await startHarness(target.name, 'x402', {
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
      // The deposit is swept to the treasury, which signs every x402 authorization.
      assert.equal(await world.usdc.balanceOf(world.treasury), 50_000_000n);
    });
    after(async () => {
      await dispatcher.close();
      await h?.close();
      await seller?.close();
      await world?.anvil.stop();
    });
    beforeEach(async () => {
      const policies = await owner.api.get(`/api/v1/agent-wallets/${walletId}/policies?limit=100`);
      for (const p of policies.body.data.items)
        await owner.api.delete(`/api/v1/agent-wallets/${walletId}/policies/${p.id}`);
    });

    test('the x402 tools are listed on the evm rail', async () => {
      const listed = await h.app.inject({
        method: 'GET',
        url: '/mcp/v1/tools',
        headers: { authorization: `Bearer ${key}` },
      });
      const names = listed.json().data.tools.map((t: Wire) => t.name);
      assert.ok(names.includes('x402_fetch') && names.includes('x402_sign'), names.join());
    });

    test('a paid GET: the content comes back, the seller is paid on chain once, history shows the resource', async () => {
      const hook = await owner.api.post('/api/v1/webhooks', {
        url: `${seller.origin}/hook`,
        events: ['payment.completed'],
      });
      assert.equal(hook.status, 201, hook.raw);
      const before = await balance();
      const paidBefore = seller.paidRequests().length;
      const data = toolOk(await fetchReport({ idempotencyKey: 'get-1', memo: 'daily report' }), 'x402_fetch');
      assert.equal(data.status, 200);
      assert.equal(data.bodyEncoding, 'utf8');
      assert.deepEqual(JSON.parse(data.body), { report: 'the paid content', lines: 3 });
      assert.match(data.headers['content-type'], /application\/json/);
      assert.equal(data.payment.amount, '1.500000');
      assert.equal(data.payment.payTo, SELLER_PAY_TO);
      assert.equal(data.payment.status, 'processing', 'not yet confirmed');
      assert.match(data.payment.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(seller.paidRequests().length, paidBefore + 1);
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), REPORT_MICROS);
      assert.equal(await balance(), minus(before, '1.5'));
      await settle();
      const history = toolOk(await tool(h, key, 'get_tx_history', {}), 'get_tx_history');
      const tx = history.transactions.find((t: Wire) => t.id === data.payment.txId);
      assert.equal(tx.type, 'x402');
      assert.equal(tx.protocol, 'x402');
      assert.equal(tx.scheme, 'exact');
      assert.equal(tx.resource, `${seller.origin}/report`);
      assert.equal(tx.receipt, data.headers['payment-response'], 'the seller’s PAYMENT-RESPONSE is kept');
      assert.equal(tx.status, 'completed');
      assert.equal(tx.txHash, data.payment.txHash);
      assert.equal(tx.memo, 'daily report');
      const events = await h.services.store.db
        .selectFrom('webhook_events')
        .select('data_json')
        .where('type', '=', 'payment.completed')
        .execute();
      const completed = events.map((e) => JSON.parse(e.data_json)).find((d) => d.id === data.payment.txId);
      assert.equal(completed?.resource, `${seller.origin}/report`, 'payment.completed carries the resource');
      assert.equal(completed?.type, 'x402');
      const replay = toolOk(
        await fetchReport({ idempotencyKey: 'get-1', memo: 'daily report' }),
        'x402_fetch',
      );
      assert.equal(replay.body, data.body);
      assert.equal(replay.payment.status, 'completed', 'a replay shows the payment as it is now');
      assert.equal(seller.paidRequests().length, paidBefore + 1, 'a replay asks the seller nothing');
      await assertLedgerOk(h);
    });

    test('a paid POST sends the body and gets the seller’s answer', async () => {
      const data = toolOk(
        await tool(h, key, 'x402_fetch', {
          url: `${seller.origin}/echo`,
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'hello seller',
          maxAmount: '1',
        }),
        'x402_fetch',
      );
      assert.equal(data.status, 200);
      assert.equal(data.body, 'echo: hello seller');
      assert.equal(data.payment.amount, '0.500000');
      // The form models are shown: headers as a list of {name, value}.
      const listed = toolOk(
        await tool(h, key, 'x402_fetch', {
          url: `${seller.origin}/echo`,
          method: 'POST',
          headers: [{ name: 'content-type', value: 'text/plain' }],
          body: 'hello again',
          maxAmount: '1',
        }),
        'x402_fetch',
      );
      assert.equal(listed.body, 'echo: hello again');
    });

    test('check_payment judges a 402’s requirement as x402_fetch would pay it; nothing is stored', async () => {
      const answer = await plainFetch(`${seller.origin}/report`);
      const required = JSON.parse(
        Buffer.from(answer.headers.get('payment-required')!, 'base64').toString('utf8'),
      );
      const allowed = toolOk(
        await tool(h, key, 'check_payment', { paymentRequirements: required }),
        'check_payment',
      );
      assert.equal(allowed.allowed, true);
      // The form models are shown: the same requirements as JSON text (null toAddress and amount: absent).
      const asText = toolOk(
        await tool(h, key, 'check_payment', {
          toAddress: null,
          amount: null,
          paymentRequirements: JSON.stringify(required),
        }),
        'check_payment',
      );
      assert.deepEqual(asText, allowed);
      await createPolicy(owner, walletId, 'spend_cap_per_tx', { limit: '1' });
      const denied = toolOk(
        await tool(h, key, 'check_payment', { paymentRequirements: required }),
        'check_payment',
      );
      assert.equal(denied.allowed, false);
      assert.equal(denied.violations[0].policyType, 'spend_cap_per_tx');
      const foreign = { ...required, accepts: [{ ...required.accepts[0], network: 'eip155:1' }] };
      const unsupported = await tool(h, key, 'check_payment', { paymentRequirements: foreign });
      expectError(unsupported, 422, 'X402_UNSUPPORTED');
    });

    test('a redirect is handed back, never followed; the agent’s own Authorization never reaches the seller', async () => {
      const data = toolOk(
        await tool(h, key, 'x402_fetch', { url: `${seller.origin}/redirect`, maxAmount: '1' }),
        'x402_fetch',
      );
      assert.equal(data.status, 302);
      assert.equal(data.headers.location, 'http://10.255.255.1/internal');
      assert.equal(data.payment, null);
      assert.ok(seller.requests.length > 0);
      for (const r of seller.requests) assert.equal(r.authorization, undefined, `${r.method} ${r.path}`);
      const asked = toolOk(
        await tool(h, key, 'x402_fetch', {
          url: `${seller.origin}/free`,
          maxAmount: '1',
          headers: { authorization: 'Bearer seller-token' },
        }),
        'x402_fetch',
      );
      assert.equal(asked.status, 200);
      assert.equal(
        seller.requests.at(-1)!.authorization,
        'Bearer seller-token',
        'sent only when asked per call',
      );
    });

    test('a free resource is fetched without paying', async () => {
      const data = toolOk(
        await tool(h, key, 'x402_fetch', { url: `${seller.origin}/free`, maxAmount: '1' }),
        'x402_fetch',
      );
      assert.equal(data.status, 200);
      assert.equal(data.payment, null);
    });

    for (const [name, policy] of [
      ['a per-payment cap', { type: 'spend_cap_per_tx', params: { limit: '1' } }],
      ['a rolling budget', { type: 'spend_cap_window', params: { window: '24h', limit: '1' } }],
      ['a blocked payTo', { type: 'address_blocklist', params: { addresses: [SELLER_PAY_TO] } }],
    ] as const) {
      test(`${name} denies it: nothing signed, nothing on chain, no payment header upstream`, async () => {
        await createPolicy(owner, walletId, policy.type, policy.params);
        await expectNothingPaid(async () => {
          const reply = await fetchReport({ idempotencyKey: `deny-${policy.type}` });
          expectError(reply, 422, 'POLICY_DENIED');
          assert.equal(reply.body.data.status, 'rejected');
          const again = await fetchReport({ idempotencyKey: `deny-${policy.type}` });
          expectError(again, 422, 'POLICY_DENIED');
        });
      });
    }

    test('outside a time window it is denied: nothing signed, nothing on chain', async () => {
      const hour = new Date(h.clock.nowMs()).getUTCHours();
      const from = hour <= 20 ? hour + 2 : hour - 5;
      const hh = (n: number) => `${String(n).padStart(2, '0')}:00`;
      await createPolicy(owner, walletId, 'time_window', {
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
        start: hh(from),
        end: hh(from + 1),
        timezone: 'UTC',
      });
      await expectNothingPaid(async () => {
        const reply = await fetchReport({ idempotencyKey: 'deny-time-window' });
        expectError(reply, 422, 'POLICY_DENIED');
        assert.equal(reply.body.error.violations[0].policyType, 'time_window');
      });
    });

    test('a treasury that cannot cover the price: 503 before anything is decided, nothing signed', async () => {
      const before = await snapshot(world.anvil);
      try {
        // Move the treasury's USDC away (on a snapshot the test reverts), leaving less than the price.
        const treasury = anvilWalletClient(
          world.anvil,
          mnemonicToAccount(world.mnemonic, { addressIndex: 0 }),
        );
        const held = await world.usdc.balanceOf(world.treasury);
        const hash = await treasury.writeContract({
          address: world.usdc.address,
          abi: world.usdc.abi,
          functionName: 'transfer',
          args: [ELSEWHERE, held - 1_000_000n],
        });
        await world.usdc.publicClient.waitForTransactionReceipt({ hash });
        await h.services.chain!.rail.treasury.refresh();
        const paidBefore = seller.paidRequests().length;
        const balanceBefore = await balance();
        const reply = await fetchReport({ idempotencyKey: 'uncovered' });
        expectError(reply, 503, 'SERVICE_UNAVAILABLE');
        assert.match(reply.body.error.message, /less than this payment/);
        assert.equal(seller.paidRequests().length, paidBefore);
        assert.equal(await balance(), balanceBefore, 'nothing was debited');
      } finally {
        await revert(world.anvil, before);
        await h.services.chain!.rail.treasury.refresh();
      }
    });

    test('a price above maxAmount is refused before anything is decided', async () => {
      await expectNothingPaid(async () => {
        const reply = await fetchReport({ maxAmount: '1.499999' });
        expectError(reply, 422, 'X402_PRICE_TOO_HIGH');
      });
    });

    test('above the approval threshold: pending, nothing paid; approved, the same call pays once', async () => {
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '1' });
      const paidBefore = seller.paidRequests().length;
      const sellerBefore = await world.usdc.balanceOf(SELLER_PAY_TO);
      const first = toolOk(await fetchReport({ idempotencyKey: 'needs-ok' }), 'x402_fetch');
      assert.equal(first.status, 402);
      assert.equal(first.payment.status, 'pending');
      assert.equal(seller.paidRequests().length, paidBefore);
      const approved = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${first.payment.txId}/approve`,
        {},
      );
      assert.equal(approved.status, 200, approved.raw);
      assert.equal(
        await world.usdc.balanceOf(SELLER_PAY_TO),
        sellerBefore,
        'the approval itself pays nobody',
      );
      const paid = toolOk(await fetchReport({ idempotencyKey: 'needs-ok' }), 'x402_fetch');
      assert.equal(paid.status, 200, JSON.stringify(paid));
      assert.equal(paid.payment.txId, first.payment.txId);
      const again = toolOk(await fetchReport({ idempotencyKey: 'needs-ok' }), 'x402_fetch');
      assert.equal(again.body, paid.body);
      assert.equal(seller.paidRequests().length, paidBefore + 1);
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore + REPORT_MICROS);
    });

    // Outside finding 3: the owner approved, then froze the wallet, and the agent's repeat was signed and paid.
    test('approved, then frozen: the repeat is 403 WALLET_FROZEN, nothing signed or paid; unfrozen, it pays', async () => {
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '1' });
      const asked = seller.requests.length;
      const paidBefore = seller.paidRequests().length;
      const sellerBefore = await world.usdc.balanceOf(SELLER_PAY_TO);
      const before = await balance();
      const pending = toolOk(await fetchReport({ idempotencyKey: 'ok-then-frozen' }), 'x402_fetch');
      assert.equal(pending.payment.status, 'pending');
      const txId = pending.payment.txId;
      const approved = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${txId}/approve`,
        {},
      );
      assert.equal(approved.status, 200, approved.raw);
      const frozen = await owner.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
      assert.equal(frozen.status, 200, frozen.raw);
      try {
        const refused = await fetchReport({ idempotencyKey: 'ok-then-frozen' });
        expectError(refused, 403, 'WALLET_FROZEN');
        const free = await tool(h, key, 'x402_fetch', { url: `${seller.origin}/free`, maxAmount: '1' });
        expectError(free, 403, 'WALLET_FROZEN');
        assert.equal(seller.requests.length, asked + 1, 'only the first, unpaid request reached the seller');
        assert.equal(seller.paidRequests().length, paidBefore, 'no payment header reached the seller');
        assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore, 'nothing moved on chain');
        const row = await h.services.store.db
          .selectFrom('x402_payments')
          .select(['state', 'nonce'])
          .where('transaction_id', '=', txId)
          .executeTakeFirstOrThrow();
        assert.deepEqual(row, { state: 'approved', nonce: null }, 'nothing signed: the approval waits');
        const wallet = toolOk(await tool(h, key, 'check_balance', {}), 'check_balance');
        assert.equal(wallet.frozen, true);
        assert.equal(wallet.balance, minus(before, '1.5'), 'the approved amount stays set aside');
      } finally {
        const unfrozen = await owner.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`, {});
        assert.equal(unfrozen.status, 200, unfrozen.raw);
      }
      const paid = toolOk(await fetchReport({ idempotencyKey: 'ok-then-frozen' }), 'x402_fetch');
      assert.equal(paid.status, 200, JSON.stringify(paid));
      assert.equal(paid.payment.txId, txId);
      assert.equal(seller.paidRequests().length, paidBefore + 1);
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore + REPORT_MICROS);
      assert.equal(await balance(), minus(before, '1.5'), 'paid once');
    });

    test('x402_sign on a frozen wallet hands out no authorization, not even one signed before the freeze', async () => {
      const answer = await plainFetch(`${seller.origin}/report`);
      const required = JSON.parse(
        Buffer.from(answer.headers.get('payment-required')!, 'base64').toString('utf8'),
      );
      const params = { paymentRequirements: required, idempotencyKey: 'signed-then-frozen' };
      const before = await balance();
      const signed = toolOk(await tool(h, key, 'x402_sign', params), 'x402_sign');
      assert.equal(typeof signed.header, 'string');
      await owner.api.post(`/api/v1/agent-wallets/${walletId}/freeze`, {});
      try {
        expectError(await tool(h, key, 'x402_sign', params), 403, 'WALLET_FROZEN');
        const fresh = { ...params, idempotencyKey: 'frozen-fresh' };
        expectError(await tool(h, key, 'x402_sign', fresh), 403, 'WALLET_FROZEN');
      } finally {
        await owner.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`, {});
      }
      const again = toolOk(await tool(h, key, 'x402_sign', params), 'x402_sign');
      assert.equal(again.header, signed.header, 'unfrozen: the same authorization, never a second one');
      // Never used: it comes back after validBefore (and leaves the next tests' balances alone).
      await rpc(world.anvil, 'evm_increaseTime', [400]);
      h.clock.advanceMs(400_000);
      await settle();
      assert.equal(await balance(), before);
    });

    test('the same idempotency key at the same instant: one payment, one paid request', async () => {
      const paidBefore = seller.paidRequests().length;
      const sellerBefore = await world.usdc.balanceOf(SELLER_PAY_TO);
      const before = await balance();
      const replies = await Promise.all([1, 2, 3].map(() => fetchReport({ idempotencyKey: 'same-instant' })));
      const bodies = replies.map((r) => toolOk(r, 'x402_fetch'));
      assert.ok(bodies.every((b) => b.payment.txId === bodies[0].payment.txId));
      assert.equal(seller.paidRequests().length, paidBefore + 1);
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore + REPORT_MICROS);
      assert.equal(await balance(), minus(before, '1.5'));
    });

    test('a seller that answers 402 again after payment: X402_UPSTREAM_ERROR, no second payment, money back', async () => {
      const before = await balance();
      await world.usdc.setBlocked(SELLER_PAY_TO, true);
      const paidBefore = seller.paidRequests().length;
      const reply = await fetchReport({ idempotencyKey: 'refused-by-chain' });
      await world.usdc.setBlocked(SELLER_PAY_TO, false);
      expectError(reply, 502, 'X402_UPSTREAM_ERROR');
      assert.equal(reply.body.data.payment.status, 'processing', 'the payment’s real status');
      assert.equal(seller.paidRequests().length, paidBefore + 1, 'asked once with the payment, never twice');
      const again = await fetchReport({ idempotencyKey: 'refused-by-chain' });
      expectError(again, 502, 'X402_UPSTREAM_ERROR');
      assert.equal(seller.paidRequests().length, paidBefore + 1, 'a retry replays, never pays again');
      assert.equal(await balance(), minus(before, '1.5'), 'debited until the authorization expires');
      await rpc(world.anvil, 'evm_increaseTime', [400]);
      h.clock.advanceMs(400_000);
      await settle();
      assert.equal(await balance(), before, 'expired unused: the money is back');
      const replay = await fetchReport({ idempotencyKey: 'refused-by-chain' });
      assert.equal(replay.body.data.payment.status, 'failed');
    });

    test('x402_sign: an authorization never used comes back to the wallet after validBefore', async () => {
      const answer = await plainFetch(`${seller.origin}/report`);
      assert.equal(answer.status, 402);
      const required = JSON.parse(
        Buffer.from(answer.headers.get('payment-required')!, 'base64').toString('utf8'),
      );
      const before = await balance();
      const signed = toolOk(
        await tool(h, key, 'x402_sign', { paymentRequirements: required, idempotencyKey: 'sign-unused' }),
        'x402_sign',
      );
      assert.equal(signed.status, 'processing');
      assert.equal(typeof signed.header, 'string');
      assert.equal(signed.payload.accepted.payTo, SELLER_PAY_TO);
      const same = toolOk(
        await tool(h, key, 'x402_sign', { paymentRequirements: required, idempotencyKey: 'sign-unused' }),
        'x402_sign',
      );
      assert.equal(same.header, signed.header, 'the same key gives the same authorization, not a second one');
      assert.equal(await balance(), minus(before, '1.5'));
      await duties().settleX402();
      assert.equal(await balance(), minus(before, '1.5'), 'still valid: still debited');
      // The chain and this service's clock move on together (sellers and facilitators read the chain's time).
      await rpc(world.anvil, 'evm_increaseTime', [400]);
      h.clock.advanceMs(400_000);
      await settle();
      assert.equal(await balance(), before, 'expired unused: the money is back');
      const history = toolOk(await tool(h, key, 'get_tx_history', {}), 'get_tx_history');
      const tx = history.transactions.find((t: Wire) => t.id === signed.txId);
      assert.equal(tx.status, 'failed');
      assert.equal(tx.type, 'x402');
    });

    test('@x402/fetch with the SDK’s signer adapter pays the same endpoint, under the same policies', async () => {
      const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
      const agent = new AgentWalletClient({ baseUrl, apiKey: key, fetch: plainFetch as never });
      // The test token is no default asset of @x402's client-side spend controls; the wallet's policies are
      // the spend controls here (they deny below).
      const client = x402Client.fromConfig({
        schemes: [
          {
            network: `eip155:${world.anvil.chainId}`,
            client: x402Scheme(agent, { memo: 'via @x402/fetch' }),
          },
        ],
        spendControls: false,
      });
      const paidFetch = wrapFetchWithPayment(plainFetch, client);
      const sellerBefore = await world.usdc.balanceOf(SELLER_PAY_TO);
      const answer = await paidFetch(`${seller.origin}/report`);
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { report: 'the paid content', lines: 3 });
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore + REPORT_MICROS);
      const history = await agent.getTxHistory({ limit: 5 });
      const latest = history.transactions[0]!;
      assert.equal(latest.type, 'x402');
      assert.equal(latest.amount, '1.500000');
      await createPolicy(owner, walletId, 'spend_cap_per_tx', { limit: '1' });
      await assert.rejects(paidFetch(`${seller.origin}/report`), /denied|POLICY_DENIED|policy/i);
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore + REPORT_MICROS, 'paid once');
    });

    test('verify-ledger --chain accounts for every x402 payment', async () => {
      await settle();
      const report = await reconcileChain(
        h.services.store.db,
        h.services.chain!.rail.client,
        h.services.chain!.rail.config,
        h.services.chain!.rail.treasuryAddress,
      );
      assert.deepEqual(report.problems, []);
      await assertLedgerOk(h);
    });

    // Last: it moves this service's clock a day ahead of the chain.
    test('an approved payment the agent never fetches goes back to the wallet after a day', async () => {
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '1' });
      const before = await balance();
      const pending = toolOk(await fetchReport({ idempotencyKey: 'never-fetched' }), 'x402_fetch');
      assert.equal(pending.payment.status, 'pending');
      const approved = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${pending.payment.txId}/approve`,
        {},
      );
      assert.equal(approved.status, 200, approved.raw);
      assert.equal(await balance(), minus(before, '1.5'), 'debited at approval');
      await duties().settleX402();
      assert.equal(await balance(), minus(before, '1.5'), 'still waiting for the agent');
      h.clock.advanceMs(APPROVED_UNUSED_MS + 1);
      await duties().settleX402();
      assert.equal(await balance(), before, 'given back');
      const history = toolOk(await tool(h, key, 'get_tx_history', {}), 'get_tx_history');
      const tx = history.transactions.find((t: Wire) => t.id === pending.payment.txId);
      assert.equal(tx.status, 'failed');
      await assertLedgerOk(h);
    });

    async function expectNothingPaid(run: () => Promise<void>): Promise<void> {
      const paidBefore = seller.paidRequests().length;
      const sellerBefore = await world.usdc.balanceOf(SELLER_PAY_TO);
      const before = await balance();
      await run();
      assert.equal(seller.paidRequests().length, paidBefore, 'no payment header reached the seller');
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore, 'nothing moved on chain');
      assert.equal(await balance(), before, 'nothing was debited');
    }
  });
}
