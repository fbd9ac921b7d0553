// MPP end to end on a real chain (contract section 13): a private anvil with the TestUSDC token, a paid API built
// from the protocol's own package (mppx/server's evm charge, settling on anvil itself), and the service on
// RAIL=evm paying it from an agent wallet under the wallet's policies — by paid_fetch, and by mpp_sign for a
// challenge the agent received itself. The seller logs every request, so "nothing was paid" is checked on the
// wire and on chain, not only in the ledger.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Challenge, Credential } from 'mppx';
import { Mppx } from 'mppx/client';
import { challengeHash } from 'mppx/evm';
import { Agent, fetch as undiciFetch } from 'undici';
import { type Address, getAddress } from 'viem';
import { AgentWalletClient, MppApprovalPendingError, mppMethod } from '../../sdk/src/index.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { ManualClock } from '../src/clock.ts';
import { createPolicy, minus, tool, toolOk, type Wire } from './support/agent.ts';
import { anvilAvailable, mine } from './support/anvil.ts';
import { type EvmWorld, evmEnv, fundedEvmBuyer, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, type TestUser } from './support/http.ts';
import { type MppSeller, startMppSeller } from './support/mpp-seller.ts';

const CONFIRMATIONS = 2;
const probe = await anvilAvailable();
const SELLER_PAY_TO = getAddress('0x00000000000000000000000000000000005e11e5') as Address;
const REPORT_MICROS = 1_250_000n;

for (const target of await storeTargets()) {
  describe(`MPP on ${target.name}`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let h: Harness;
    let seller: MppSeller;
    let foreign: MppSeller;
    let both: MppSeller;
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
    const balance = async () => toolOk(await tool(h, key, 'check_balance', {}), 'check_balance').balance;
    const paidFetch = (extra: Record<string, unknown> = {}) =>
      tool(h, key, 'paid_fetch', { url: `${seller.origin}/report`, maxAmount: '2', ...extra });
    const challengeHeader = async (origin = seller.origin) => {
      const answer = await fetch(`${origin}/report`);
      assert.equal(answer.status, 402);
      return answer.headers.get('www-authenticate')!;
    };

    before(async () => {
      world = await startEvmWorld();
      seller = await startMppSeller(world, SELLER_PAY_TO, { reportPrice: '1.25' });
      foreign = await startMppSeller(world, SELLER_PAY_TO, { reportPrice: '1.25', chainId: 8453 });
      both = await startMppSeller(world, SELLER_PAY_TO, { reportPrice: '1.25', offerX402: true });
      h = await startHarness(target.name, 'mpp', {
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
    });
    after(async () => {
      await h?.close();
      await seller?.close();
      await foreign?.close();
      await both?.close();
      await world?.anvil.stop();
    });
    beforeEach(async () => {
      const policies = await owner.api.get(`/api/v1/agent-wallets/${walletId}/policies?limit=100`);
      for (const p of policies.body.data.items)
        await owner.api.delete(`/api/v1/agent-wallets/${walletId}/policies/${p.id}`);
    });

    test('paid_fetch pays an MPP 402 once: the content comes back, the chain settles it, a retry asks nothing', async () => {
      const hook = await owner.api.post('/api/v1/webhooks', {
        url: `${seller.origin}/hook`,
        events: ['payment.completed'],
      });
      assert.equal(hook.status, 201, hook.raw);
      const before = await balance();
      const sellerBefore = await world.usdc.balanceOf(SELLER_PAY_TO);
      const data = toolOk(await paidFetch({ idempotencyKey: 'mpp-1', memo: 'report' }), 'paid_fetch');
      assert.equal(data.status, 200, JSON.stringify(data));
      assert.deepEqual(JSON.parse(data.body), { report: 'the paid content', lines: 3 });
      assert.ok(data.headers['payment-receipt'], 'the seller’s receipt is handed back');
      assert.equal(data.payment.protocol, 'mpp');
      assert.equal(data.payment.scheme, 'charge');
      assert.equal(data.payment.amount, '1.250000');
      assert.equal(data.payment.authorizedAmount, '1.250000');
      assert.equal(data.payment.payTo, SELLER_PAY_TO);
      assert.equal(seller.paidRequests().length, 1);
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore + REPORT_MICROS);
      assert.equal(await balance(), minus(before, '1.25'));
      await settle();
      const history = toolOk(await tool(h, key, 'get_tx_history', {}), 'get_tx_history');
      const tx = history.transactions.find((t: Wire) => t.id === data.payment.txId);
      assert.equal(tx.status, 'completed');
      assert.equal(tx.txHash, seller.settlements[0]);
      assert.equal(tx.resource, `${seller.origin}/report`);
      assert.equal(tx.type, 'x402', 'a paid request, whatever its protocol');
      assert.equal(tx.protocol, 'mpp');
      assert.equal(tx.scheme, 'charge');
      assert.equal(tx.authorizedAmount, '1.250000');
      assert.equal(tx.receipt, data.headers['payment-receipt'], 'the seller’s receipt is kept');
      const events = await h.services.store.db
        .selectFrom('webhook_events')
        .select('data_json')
        .where('type', '=', 'payment.completed')
        .execute();
      const completed = events.map((e) => JSON.parse(e.data_json)).find((d) => d.id === data.payment.txId);
      assert.deepEqual(
        [completed?.protocol, completed?.scheme, completed?.resource],
        ['mpp', 'charge', `${seller.origin}/report`],
        'payment.completed carries how it was paid',
      );
      const rest = await owner.api.get(`/api/v1/agent-wallets/${walletId}/transactions/${data.payment.txId}`);
      assert.equal(rest.body.data.protocol, 'mpp');
      assert.equal(rest.body.data.receipt, data.headers['payment-receipt']);
      const replay = toolOk(await paidFetch({ idempotencyKey: 'mpp-1', memo: 'report' }), 'paid_fetch');
      assert.equal(replay.body, data.body);
      assert.equal(replay.payment.status, 'completed');
      assert.equal(seller.paidRequests().length, 1, 'a replay asks the seller nothing');
      await assertLedgerOk(h);
    });

    test('above maxAmount, another chain, or x402_fetch on an MPP seller: refused, nothing signed or paid', async () => {
      const paidBefore = seller.paidRequests().length + foreign.paidRequests().length;
      const before = await balance();
      const tooHigh = await paidFetch({ maxAmount: '1' });
      expectError(tooHigh, 422, 'PAYMENT_PRICE_TOO_HIGH');
      const elsewhere = await tool(h, key, 'paid_fetch', { url: `${foreign.origin}/report`, maxAmount: '2' });
      expectError(elsewhere, 422, 'PAYMENT_UNSUPPORTED');
      assert.match(elsewhere.body.error.message, /mpp evm charge \(chain 8453\)/);
      const x402Only = await tool(h, key, 'x402_fetch', { url: `${seller.origin}/report`, maxAmount: '2' });
      expectError(x402Only, 502, 'X402_UPSTREAM_ERROR');
      assert.equal(seller.paidRequests().length + foreign.paidRequests().length, paidBefore);
      assert.equal(await balance(), before);
    });

    test('a 402 offering both at one price: paid_fetch pays x402 (the tie-break), once', async () => {
      const data = toolOk(
        await tool(h, key, 'paid_fetch', { url: `${both.origin}/report`, maxAmount: '2' }),
        'paid_fetch',
      );
      assert.equal(data.status, 200, JSON.stringify(data));
      assert.equal(data.payment.protocol, 'x402');
      assert.equal(data.payment.scheme, 'exact');
      assert.deepEqual(
        both.paidRequests().map((r) => r.protocol),
        ['x402'],
      );
    });

    test('a policy denies it exactly as send_payment: nothing signed, the denial recorded', async () => {
      await createPolicy(owner, walletId, 'spend_cap_per_tx', { limit: '1' });
      const paidBefore = seller.paidRequests().length;
      const denied = await paidFetch();
      expectError(denied, 422, 'POLICY_DENIED');
      assert.equal(denied.body.error.violations[0].policyType, 'spend_cap_per_tx');
      assert.equal(seller.paidRequests().length, paidBefore);
    });

    test('mpp_sign: a credential for the agent’s own challenge; the same challenge is never paid twice', async () => {
      const header = await challengeHeader();
      const challenge = Challenge.deserialize(header);
      const signed = toolOk(
        await tool(h, key, 'mpp_sign', { challenge: header, idempotencyKey: 'sign-1' }),
        'mpp_sign',
      );
      assert.equal(signed.status, 'processing');
      assert.equal(signed.amount, '1.250000');
      assert.equal(signed.recipient, SELLER_PAY_TO);
      assert.equal(signed.expires, challenge.expires);
      assert.match(signed.authorization, /^Payment [A-Za-z0-9_-]+$/);
      const credential = Credential.deserialize(signed.authorization);
      assert.equal(credential.challenge.id, challenge.id);
      assert.equal((credential.payload as Wire).nonce, challengeHash(challenge));
      assert.deepEqual(signed.credential.payload, credential.payload);
      // The same challenge again, under another key or none, answers the same payment (one nonce: one payment).
      for (const again of [{ idempotencyKey: 'sign-2' }, {}]) {
        const twice = toolOk(await tool(h, key, 'mpp_sign', { challenge: header, ...again }), 'mpp_sign');
        assert.equal(twice.txId, signed.txId);
        assert.equal(twice.authorization, signed.authorization);
      }
      // As the MCP transport carries it: the challenge object (also as JSON text).
      const asObject = toolOk(await tool(h, key, 'mpp_sign', { challenge }), 'mpp_sign');
      assert.equal(asObject.txId, signed.txId);
      const paid = await fetch(`${seller.origin}/report`, {
        headers: { authorization: signed.authorization },
      });
      assert.equal(paid.status, 200, await paid.clone().text());
      assert.ok(paid.headers.get('payment-receipt'));
      await settle();
      const history = toolOk(await tool(h, key, 'get_tx_history', {}), 'get_tx_history');
      assert.equal(history.transactions.find((t: Wire) => t.id === signed.txId).status, 'completed');
      await assertLedgerOk(h);
    });

    test('merchant lists judge the seller’s host (paid requests only); check_payment judges a challenge the same way', async () => {
      const paidBefore = seller.paidRequests().length;
      const header = await challengeHeader();
      await createPolicy(owner, walletId, 'merchant_allowlist', { hosts: ['*.example.com'] });
      const denied = await paidFetch();
      expectError(denied, 422, 'POLICY_DENIED');
      assert.equal(denied.body.error.violations[0].policyType, 'merchant_allowlist');
      assert.match(denied.body.error.violations[0].reason, /127\.0\.0\.1 is not on the merchant allowlist/);
      const checked = toolOk(await tool(h, key, 'check_payment', { challenge: header }), 'check_payment');
      assert.equal(checked.allowed, false);
      assert.equal(checked.violations[0].policyType, 'merchant_allowlist');
      expectError(await tool(h, key, 'mpp_sign', { challenge: header }), 422, 'POLICY_DENIED');
      // A plain payment is not a paid request: merchant lists do not judge it.
      const plain = toolOk(
        await tool(h, key, 'check_payment', { toAddress: SELLER_PAY_TO, amount: '1' }),
        'check_payment',
      );
      assert.equal(plain.allowed, true);
      await createPolicy(owner, walletId, 'merchant_allowlist', { hosts: ['127.0.0.1'] });
      const listedOnOne = await paidFetch();
      expectError(listedOnOne, 422, 'POLICY_DENIED');
      assert.equal(listedOnOne.body.error.violations.length, 1, 'only the list without the host denies');
      assert.equal(seller.paidRequests().length, paidBefore, 'nothing was paid');
      const policies = await owner.api.get(`/api/v1/agent-wallets/${walletId}/policies?limit=100`);
      for (const p of policies.body.data.items)
        if (p.params.hosts.includes('*.example.com'))
          await owner.api.delete(`/api/v1/agent-wallets/${walletId}/policies/${p.id}`);
      const allowed = toolOk(await paidFetch(), 'paid_fetch');
      assert.equal(allowed.status, 200);
      await createPolicy(owner, walletId, 'merchant_blocklist', { hosts: ['127.0.0.1'] });
      const blocked = await paidFetch();
      expectError(blocked, 422, 'POLICY_DENIED');
      assert.equal(blocked.body.error.violations[0].policyType, 'merchant_blocklist');
      const bad = await owner.api.post(`/api/v1/agent-wallets/${walletId}/policies`, {
        type: 'merchant_blocklist',
        params: { hosts: ['https://evil.example/'] },
      });
      expectError(bad, 400, 'VALIDATION_ERROR');
    });

    test('one challenge signed by many calls at once is one payment', async () => {
      const header = await challengeHeader();
      const before = await balance();
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          tool(h, key, 'mpp_sign', { challenge: header, idempotencyKey: `race-${i}` }),
        ),
      );
      const txIds = new Set(replies.map((r) => toolOk(r, 'mpp_sign').txId));
      assert.equal(txIds.size, 1, 'every call answers the one payment');
      assert.equal(await balance(), minus(before, '1.25'), 'debited once');
      await assertLedgerOk(h);
    });

    test('the treasury view: hot mode, the service’s key holds it all, and all of it is at risk', async () => {
      const view = await owner.api.get('/api/v1/wallet/treasury');
      assert.equal(view.status, 200, view.raw);
      const onChain = await world.usdc.balanceOf(world.treasury);
      const usdc = `${onChain / 1_000_000n}.${(onChain % 1_000_000n).toString().padStart(6, '0')}`;
      assert.deepEqual(view.body.data, {
        mode: 'hot',
        account: world.treasury,
        owners: [],
        threshold: null,
        allowance: null,
        float: usdc,
        atRisk: usdc,
      });
      const agentCall = await tool(h, key, 'check_balance', {});
      assert.equal(agentCall.status, 200);
      const byKey = await h.app.inject({
        method: 'GET',
        url: '/api/v1/wallet/treasury',
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(byKey.statusCode, 401, 'an agent key is no session');
    });

    test('mpp_sign refuses what it cannot read or pay, before anything is decided', async () => {
      expectError(await tool(h, key, 'mpp_sign', { challenge: 'Bearer realm="x"' }), 400, 'VALIDATION_ERROR');
      expectError(await tool(h, key, 'mpp_sign', { challenge: '{"id": 1' }), 400, 'VALIDATION_ERROR');
      const unpayable = await tool(h, key, 'mpp_sign', { challenge: await challengeHeader(foreign.origin) });
      expectError(unpayable, 422, 'PAYMENT_UNSUPPORTED');
    });

    test('above the approval threshold: pending, nothing signed; once approved the same call pays', async () => {
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '1' });
      const paidBefore = seller.paidRequests().length;
      const pending = toolOk(await paidFetch({ idempotencyKey: 'held-1' }), 'paid_fetch');
      assert.equal(pending.status, 402);
      assert.equal(pending.payment.status, 'pending');
      assert.equal(seller.paidRequests().length, paidBefore);
      const approved = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${pending.payment.txId}/approve`,
      );
      assert.equal(approved.status, 200, approved.raw);
      // The approved payment pays the challenge it was decided on only while it lasts: a fresh call with the same
      // key fetches again and pays with that stored challenge's credential.
      const paid = toolOk(await paidFetch({ idempotencyKey: 'held-1' }), 'paid_fetch');
      assert.equal(paid.payment.txId, pending.payment.txId);
      assert.equal(paid.status, 200, JSON.stringify(paid));
      assert.equal(seller.paidRequests().length, paidBefore + 1);
    });

    test('mppx’s own client with the SDK’s method pays the same endpoint, under the same policies and approvals', async () => {
      const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
      // Without keep-alive: a pooled socket's timers would outlive the suite.
      const dispatcher = new Agent({ pipelining: 0 });
      const plainFetch = (async (input: string | Request, init?: RequestInit) => {
        const request = new Request(input, init);
        const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
        return undiciFetch(request.url, {
          method: request.method,
          headers: Object.fromEntries(request.headers),
          body,
          dispatcher,
        });
      }) as unknown as typeof fetch;
      const agent = new AgentWalletClient({ baseUrl, apiKey: key, fetch: plainFetch as never });
      const mppx = Mppx.create({
        methods: [mppMethod(agent, { memo: 'via mppx' })],
        polyfill: false,
        fetch: plainFetch,
      });
      const sellerBefore = await world.usdc.balanceOf(SELLER_PAY_TO);
      const paidBefore = seller.paidRequests().length;
      const answer = await mppx.fetch(`${seller.origin}/report`);
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { report: 'the paid content', lines: 3 });
      assert.equal(seller.paidRequests().length, paidBefore + 1);
      await settle();
      assert.equal(await world.usdc.balanceOf(SELLER_PAY_TO), sellerBefore + REPORT_MICROS);
      const latest = (await agent.getTxHistory({ limit: 1 })).transactions[0]!;
      assert.equal(latest.type, 'x402');
      assert.equal(latest.protocol, 'mpp');
      assert.equal(latest.amount, '1.250000');
      assert.equal(latest.memo, 'via mppx');
      // Held for approval: the method throws MppApprovalPendingError, nothing is signed or paid.
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '1' });
      const held = await mppx.fetch(`${seller.origin}/report`).catch((error: unknown) => error);
      assert.ok(held instanceof MppApprovalPendingError, String(held));
      assert.equal(seller.paidRequests().length, paidBefore + 1, 'nothing paid while pending');
      // The wallet's policies are the spend controls: a denial reaches the caller, nothing is paid.
      await createPolicy(owner, walletId, 'spend_cap_per_tx', { limit: '1' });
      await assert.rejects(mppx.fetch(`${seller.origin}/report`), /denied|POLICY_DENIED|policy/i);
      assert.equal(seller.paidRequests().length, paidBefore + 1, 'paid once');
      // The held payment is rejected: its money back before the ledger checks below.
      await owner.api.post(`/api/v1/agent-wallets/${walletId}/transactions/${held.txId}/reject`);
    });

    test('verify-ledger --chain accounts for every MPP payment, settled or in flight', async () => {
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
  });
}
