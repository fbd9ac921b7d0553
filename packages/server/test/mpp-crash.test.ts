// MPP crash safety, as x402-crash.test.ts for x402: the service a real process SIGKILLed after it signed an MPP
// credential (an EIP-3009 authorization whose nonce is the challenge's hash) and before it repeated the request
// with it. After a restart, paid_fetch with the same idempotency key sends that very credential again (never a
// second one): the seller, mppx's own evm charge, is paid once and the wallet debited once. A credential nobody
// ever uses comes back to the wallet once the chain is past its validity. verify-ledger --chain agrees after each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, getAddress } from 'viem';
import { anvilAvailable, mine, rpc } from './support/anvil.ts';
import { CRASH_WAIT_MS, type CrashBuyer, startCrashBuyer } from './support/crash-buyer.ts';
import { type EvmWorld, startEvmWorld } from './support/evm.ts';
import { type MppSeller, startMppSeller } from './support/mpp-seller.ts';
import type { ServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';

const probe = await anvilAvailable();
const PAY_TO = getAddress('0x00000000000000000000000000000000005e11e6') as Address;

describe('MPP: SIGKILL after signing', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let seller: MppSeller;
  let buyer: CrashBuyer;
  const fetchReport = (s: ServiceProcess, idempotencyKey: string) =>
    request(s.url, 'POST', '/mcp/v1/tools/paid_fetch', buyer.agentKey, {
      params: { url: `${seller.origin}/report`, maxAmount: '5', idempotencyKey },
    });

  before(async () => {
    world = await startEvmWorld();
    seller = await startMppSeller(world, PAY_TO, { reportPrice: '2' });
    buyer = await startCrashBuyer(world, 'mpp-crash');
  });
  after(async () => {
    await buyer?.close();
    await seller?.close();
    await world?.anvil.stop();
  });

  test('the retry after a restart sends the same credential: paid once, debited once', async () => {
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
    assert.equal(paid.body.data.payment.protocol, 'mpp');
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

  test('a credential signed and never used comes back after its validity', async () => {
    const s = await buyer.start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    await fetchReport(s, 'crash-2').catch(() => undefined);
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', CRASH_WAIT_MS);
    const restarted = await buyer.start();
    assert.equal(await buyer.balanceOf(restarted), '46.000000');
    // Nobody retries. Once a block is past the credential's validity (at most 300 s ahead) the money comes back.
    await rpc(world.anvil, 'evm_increaseTime', [400]);
    await mine(world.anvil, 1);
    await waitFor(
      'the money is back',
      async () => (await buyer.balanceOf(restarted)) === '48.000000',
      CRASH_WAIT_MS,
    );
    assert.equal((await buyer.transfersTo(PAY_TO)).length, 1, 'still only the first test’s transfer');
    await restarted.stop();
    const verified = buyer.verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });
});
