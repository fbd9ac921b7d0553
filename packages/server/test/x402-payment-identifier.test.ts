// x402's payment-identifier extension (@x402/extensions) end to end on a real chain: sellers built from the x402
// packages (test/support/x402-seller.ts for `exact`, x402-upto-seller.ts for `upto`) declare it — optional or
// required — and log the id every verified payment carries. Where declared, the payload the service sends carries
// an id derived from the payment's stored nonce: the same on a retry, a replay and after an approval (the seller is
// not asked for its 402 again: the declaration stored with the payment answers it); where not declared, nothing is
// added. The restart case (SIGKILL after signing) is in test/x402-crash.test.ts.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { x402Client } from '@x402/core/client';
import { isValidPaymentId } from '@x402/extensions/payment-identifier';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Agent, fetch as undiciFetch } from 'undici';
import { type Address, getAddress } from 'viem';
import { AgentWalletClient, x402Scheme } from '../../sdk/src/index.ts';
import { ManualClock } from '../src/clock.ts';
import { createPolicy, tool, toolOk, type Wire } from './support/agent.ts';
import { anvilAvailable, mine } from './support/anvil.ts';
import { type EvmWorld, evmEnv, fundedEvmBuyer, startEvmWorld } from './support/evm.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, type TestUser } from './support/http.ts';
import { deployUptoContracts } from './support/permit2.ts';
import { type IdentifiedPayment, paymentIdentifierDeclared } from './support/x402-payment-identifier.ts';
import { type Seller, startSeller } from './support/x402-seller.ts';
import { startUptoSeller, type UptoSeller } from './support/x402-upto-seller.ts';

const CONFIRMATIONS = 2;
const probe = await anvilAvailable();
const SELLER_PAY_TO = getAddress('0x00000000000000000000000000000000005e11e6') as Address;
const UPTO_PAY_TO = getAddress('0x00000000000000000000000000000000005e11e7') as Address;

/** The id a payment carried is the one derived from the authorization it carried (its nonce, any base). */
function assertIdOfItsNonce(seen: IdentifiedPayment): string {
  assert.ok(seen.id !== null && isValidPaymentId(seen.id), `a valid payment id: ${seen.id}`);
  assert.match(seen.id, /^pay_[0-9a-f]{64}$/);
  assert.equal(
    BigInt(`0x${seen.id.slice(4)}`),
    BigInt(seen.nonce!),
    'derived from the authorization’s nonce',
  );
  return seen.id;
}

const decodeHeader = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString('utf8'));

for (const target of await storeTargets()) {
  describe(`x402 payment-identifier on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let seller: Seller;
    let upto: UptoSeller;
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
    const fetchPaid = (path: string, idempotencyKey: string) =>
      tool(h, key, 'x402_fetch', { url: `${seller.origin}${path}`, maxAmount: '2', idempotencyKey });
    const lastSeen = () => seller.identified.at(-1)!;
    const requiredOf = async (url: string) => {
      const answer = await plainFetch(url);
      assert.equal(answer.status, 402);
      return decodeHeader(answer.headers.get('payment-required')!);
    };

    before(async () => {
      world = await startEvmWorld();
      seller = await startSeller(world, SELLER_PAY_TO, { reportMicros: 1_000_000n, echoMicros: 500_000n });
      await deployUptoContracts(world.anvil);
      upto = await startUptoSeller(world, UPTO_PAY_TO, 2_000_000n, paymentIdentifierDeclared(true));
      h = await startHarness(target.name, 'x402_payment_id', {
        clock: new ManualClock(Date.now()),
        env: evmEnv(world, { CONFIRMATIONS: String(CONFIRMATIONS), X402_ALLOW_PRIVATE: 'true' }),
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
      await upto?.close();
      await world?.anvil.stop();
      await dispatcher.close();
    });
    beforeEach(async () => {
      const policies = await owner.api.get(`/api/v1/agent-wallets/${walletId}/policies?limit=100`);
      for (const p of policies.body.data.items)
        await owner.api.delete(`/api/v1/agent-wallets/${walletId}/policies/${p.id}`);
    });

    test('declared optional: the payload carries an id of this payment; a replay asks nothing, a new payment has a new id', async () => {
      const count = seller.identified.length;
      const data = toolOk(await fetchPaid('/identified', 'pid-optional'), 'x402_fetch');
      assert.equal(data.status, 200, JSON.stringify(data));
      assert.equal(seller.identified.length, count + 1);
      const id = assertIdOfItsNonce(lastSeen());
      const echoed = lastSeen().extensions?.['payment-identifier'] as { info: Wire; schema: Wire };
      assert.equal(echoed.info.required, false, 'the seller’s declaration answered as declared');
      assert.equal(echoed.schema.type, 'object');
      const replay = toolOk(await fetchPaid('/identified', 'pid-optional'), 'x402_fetch');
      assert.equal(replay.body, data.body);
      assert.equal(seller.identified.length, count + 1, 'a replay is not sent again');
      toolOk(await fetchPaid('/identified', 'pid-optional-2'), 'x402_fetch');
      assert.notEqual(assertIdOfItsNonce(lastSeen()), id, 'another payment, another id');
    });

    test('not declared: nothing is added to the payload', async () => {
      const data = toolOk(await fetchPaid('/report', 'pid-none'), 'x402_fetch');
      assert.equal(data.status, 200);
      assert.equal(lastSeen().id, null);
      assert.equal(lastSeen().extensions, undefined);
    });

    test('declared required: x402_fetch and paid_fetch pay; a payload without the id is refused by that seller', async () => {
      const paid = toolOk(await fetchPaid('/identified-required', 'pid-required'), 'x402_fetch');
      assert.equal(paid.status, 200, JSON.stringify(paid));
      assertIdOfItsNonce(lastSeen());
      const viaPaidFetch = toolOk(
        await tool(h, key, 'paid_fetch', {
          url: `${seller.origin}/identified-required`,
          maxAmount: '2',
          idempotencyKey: 'pid-required-paid-fetch',
        }),
        'paid_fetch',
      );
      assert.equal(viaPaidFetch.status, 200);
      assertIdOfItsNonce(lastSeen());
      // x402_sign given the requirement alone has no declaration to answer: no id, and this seller refuses it.
      const required = await requiredOf(`${seller.origin}/identified-required`);
      assert.equal(required.extensions['payment-identifier'].info.required, true);
      const bare = toolOk(
        await tool(h, key, 'x402_sign', {
          paymentRequirements: required.accepts[0],
          idempotencyKey: 'pid-bare',
        }),
        'x402_sign',
      );
      assert.equal(bare.payload.extensions, undefined);
      const refused = await plainFetch(`${seller.origin}/identified-required`, {
        headers: { 'payment-signature': bare.header },
      });
      assert.equal(refused.status, 402, 'the seller requires the id');
      assert.equal(lastSeen().id, null);
    });

    test('x402_sign answers the declaration with the id; the same key signs the same id, and the seller takes it', async () => {
      const required = await requiredOf(`${seller.origin}/identified-required`);
      const signed = toolOk(
        await tool(h, key, 'x402_sign', { paymentRequirements: required, idempotencyKey: 'pid-sign' }),
        'x402_sign',
      );
      const id = signed.payload.extensions['payment-identifier'].info.id;
      assert.ok(isValidPaymentId(id), id);
      assert.deepEqual(decodeHeader(signed.header).extensions, signed.payload.extensions);
      const again = toolOk(
        await tool(h, key, 'x402_sign', { paymentRequirements: required, idempotencyKey: 'pid-sign' }),
        'x402_sign',
      );
      assert.equal(again.header, signed.header, 'the same payment, the same id');
      const paid = await plainFetch(`${seller.origin}/identified-required`, {
        headers: { 'payment-signature': signed.header },
      });
      assert.equal(paid.status, 200, await paid.clone().text());
      assert.equal(assertIdOfItsNonce(lastSeen()), id);
    });

    test('approved later: the declaration stored with the payment answers it, the seller is not asked for its 402 again', async () => {
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '0.5' });
      const first = toolOk(await fetchPaid('/identified-required', 'pid-approval'), 'x402_fetch');
      assert.equal(first.payment.status, 'pending');
      const approved = await owner.api.post(
        `/api/v1/agent-wallets/${walletId}/transactions/${first.payment.txId}/approve`,
        {},
      );
      assert.equal(approved.status, 200, approved.raw);
      const asked = seller.requests.length;
      const paid = toolOk(await fetchPaid('/identified-required', 'pid-approval'), 'x402_fetch');
      assert.equal(paid.status, 200, JSON.stringify(paid));
      assert.equal(seller.requests.length, asked + 1, 'one request: the paid one');
      assertIdOfItsNonce(lastSeen());
    });

    test('the SDK’s adapter under @x402/fetch passes the declaration: a seller requiring the id is paid', async () => {
      const baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
      const agent = new AgentWalletClient({ baseUrl, apiKey: key, fetch: plainFetch as never });
      const client = x402Client.fromConfig({
        schemes: [{ network: `eip155:${world.anvil.chainId}`, client: x402Scheme(agent) }],
        spendControls: false,
      });
      const answer = await wrapFetchWithPayment(plainFetch, client)(`${seller.origin}/identified-required`);
      assert.equal(answer.status, 200, await answer.clone().text());
      assertIdOfItsNonce(lastSeen());
      // A stable idempotency key per purchase: asked again, the adapter answers the same payment, the same id.
      const required = await requiredOf(`${seller.origin}/identified-required`);
      const scheme = x402Scheme(agent, { idempotencyKey: () => 'pid-sdk-stable' });
      const context = { extensions: required.extensions };
      const first = await scheme.createPaymentPayload(2, required.accepts[0], context);
      const again = await scheme.createPaymentPayload(2, required.accepts[0], context);
      const idOf = (p: { extensions?: Record<string, unknown> }) =>
        (p.extensions?.['payment-identifier'] as { info?: { id?: string } } | undefined)?.info?.id;
      assert.ok(isValidPaymentId(idOf(first) ?? ''));
      assert.equal(idOf(again), idOf(first));
      assert.deepEqual(again.payload, first.payload, 'the same authorization');
    });

    test('upto: a metered seller requiring the id is paid with the Permit2 payload carrying it', async () => {
      const pay = () =>
        tool(h, key, 'paid_fetch', {
          url: `${upto.origin}/metered?use=100000`,
          maxAmount: '2',
          idempotencyKey: 'pid-upto',
        });
      // The first upto payment waits for the treasury's Permit2 approval (the service's own transaction).
      expectError(await pay(), 503, 'SERVICE_UNAVAILABLE');
      await duties().send();
      await mine(world.anvil, CONFIRMATIONS);
      await duties().send();
      const data = toolOk(await pay(), 'paid_fetch');
      assert.equal(data.status, 200, JSON.stringify(data));
      assert.equal(data.payment.scheme, 'upto');
      const seen = upto.identified.at(-1)!;
      assertIdOfItsNonce(seen);
      assert.equal(upto.identified.length, 1);
      const replay = toolOk(await pay(), 'paid_fetch');
      assert.equal(replay.body, data.body);
      assert.equal(upto.identified.length, 1, 'a replay is not sent again');
    });
  });
}
