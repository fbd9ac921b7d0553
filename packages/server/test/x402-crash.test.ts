// x402 crash safety, with the service as a real process SIGKILLed after it signed an authorization and before
// it asked the resource with it. After a restart, the same call with the same idempotency key re-sends that very
// authorization (never a second one): the seller is paid once, the wallet debited once. A signed authorization
// nobody ever uses comes back to the wallet once the chain is past its validBefore. verify-ledger --chain
// agrees with the chain after each. A seller that requires x402's payment-identifier gets it from the restarted
// process too: the declaration was stored with the payment (the 402 is not asked for again).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isValidPaymentId } from '@x402/extensions/payment-identifier';
import { type Address, getAddress } from 'viem';
import { anvilAvailable, mine, rpc } from './support/anvil.ts';
import { CRASH_WAIT_MS, type CrashBuyer, startCrashBuyer } from './support/crash-buyer.ts';
import { type EvmWorld, startEvmWorld } from './support/evm.ts';
import type { ServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';
import { type Seller, startSeller } from './support/x402-seller.ts';

const probe = await anvilAvailable();
const PAY_TO = getAddress('0x000000000000000000000000000000000000c4a5') as Address;

describe('x402: SIGKILL after signing', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let seller: Seller;
  let buyer: CrashBuyer;
  const fetchReport = (s: ServiceProcess, idempotencyKey: string, path = '/report') =>
    request(s.url, 'POST', '/mcp/v1/tools/x402_fetch', buyer.agentKey, {
      params: { url: `${seller.origin}${path}`, maxAmount: '5', idempotencyKey },
    });

  before(async () => {
    world = await startEvmWorld();
    seller = await startSeller(world, PAY_TO, { reportMicros: 2_000_000n, echoMicros: 1_000_000n });
    buyer = await startCrashBuyer(world, 'x402-crash');
  });
  after(async () => {
    await buyer?.close();
    await seller?.close();
    await world?.anvil.stop();
  });

  test('the retry after a restart re-sends the same authorization: paid once, debited once', async () => {
    const s = await buyer.start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    const first = await fetchReport(s, 'crash-1').catch((error: unknown) => error);
    assert.ok(first instanceof Error, 'the process died before answering');
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', CRASH_WAIT_MS);
    assert.equal(seller.paidRequests().length, 0, 'the seller never saw the signed payment');
    const restarted = await buyer.start();
    assert.equal(await buyer.balanceOf(restarted), '48.000000', 'debited once, before signing');
    const paid = await fetchReport(restarted, 'crash-1');
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data.status, 200);
    assert.match(paid.body.data.body, /the paid content/);
    assert.equal(seller.paidRequests().length, 1);
    assert.equal((await buyer.transfersTo(PAY_TO)).length, 1, 'exactly one transfer on chain');
    assert.equal(await buyer.balanceOf(restarted), '48.000000');
    const replay = await fetchReport(restarted, 'crash-1');
    assert.equal(replay.body.data.payment.txId, paid.body.data.payment.txId);
    assert.equal(seller.paidRequests().length, 1, 'a replay asks nothing');
    await mine(world.anvil, 2);
    await waitFor(
      'the payment completes',
      async () => (await fetchReport(restarted, 'crash-1')).body.data.payment.status === 'completed',
      CRASH_WAIT_MS,
    );
    await restarted.stop();
    const verified = buyer.verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });

  test('a seller requiring the payment identifier is paid by the restarted process, with the id of that authorization', async () => {
    const identified = () => seller.identified.filter((p) => p.url?.endsWith('/identified-required'));
    const s = await buyer.start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    await fetchReport(s, 'crash-3', '/identified-required').catch(() => undefined);
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', CRASH_WAIT_MS);
    assert.equal(identified().length, 0, 'nothing was sent before the crash');
    const restarted = await buyer.start();
    const paid = await fetchReport(restarted, 'crash-3', '/identified-required');
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data.status, 200, 'the seller took it: the id it requires was there');
    assert.equal(identified().length, 1);
    const seen = identified()[0]!;
    assert.ok(seen.id !== null && isValidPaymentId(seen.id), String(seen.id));
    assert.equal(
      BigInt(`0x${seen.id.slice(4)}`),
      BigInt(seen.nonce!),
      'the id of the authorization signed before',
    );
    assert.equal((await buyer.transfersTo(PAY_TO)).length, 2, 'the first test’s transfer and this one');
    await mine(world.anvil, 2);
    await waitFor(
      'the payment completes',
      async () =>
        (await fetchReport(restarted, 'crash-3', '/identified-required')).body.data.payment.status ===
        'completed',
      CRASH_WAIT_MS,
    );
    assert.equal(identified().length, 1, 'replays send nothing');
    await restarted.stop();
    const verified = buyer.verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });
  test('an authorization signed and never used comes back after validBefore', async () => {
    const s = await buyer.start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    await fetchReport(s, 'crash-2').catch(() => undefined);
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', CRASH_WAIT_MS);
    const restarted = await buyer.start();
    assert.equal(await buyer.balanceOf(restarted), '44.000000');
    // Nobody retries. Once a block is past validBefore (at most 300 s ahead) the duty gives the money back.
    await rpc(world.anvil, 'evm_increaseTime', [400]);
    await mine(world.anvil, 1);
    await waitFor(
      'the money is back',
      async () => (await buyer.balanceOf(restarted)) === '46.000000',
      CRASH_WAIT_MS,
    );
    assert.equal((await buyer.transfersTo(PAY_TO)).length, 2, 'still only the earlier tests’ transfers');
    await restarted.stop();
    const verified = buyer.verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });
});
