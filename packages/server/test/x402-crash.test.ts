// x402 crash safety, with the service as a real process SIGKILLed after it signed an authorization and before
// it asked the resource with it. After a restart, the same call with the same idempotency key re-sends that very
// authorization (never a second one): the seller is paid once, the wallet debited once. A signed authorization
// nobody ever uses comes back to the wallet once the chain is past its validBefore. verify-ledger --chain
// agrees with the chain after each. A seller that requires x402's payment-identifier gets it from the restarted
// process too: the declaration was stored with the payment (the 402 is not asked for again).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isValidPaymentId } from '@x402/extensions/payment-identifier';
import { type Address, getAddress, parseAbiItem } from 'viem';
import { anvilAvailable, mine, rpc } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';
import { type Seller, startSeller } from './support/x402-seller.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const probe = await anvilAvailable();
const WAIT_MS = 20_000;
const PAY_TO = getAddress('0x000000000000000000000000000000000000c4a5') as Address;

describe('x402: SIGKILL after signing', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let seller: Seller;
  let dataDir: string;
  let env: Record<string, string>;
  const started: ServiceProcess[] = [];
  let agentKey: string;
  let token: string;
  let walletId: string;

  const start = async (extra: Record<string, string> = {}) => {
    const s = await startServiceProcess({ ...env, ...extra });
    started.push(s);
    return s;
  };
  const fetchReport = (s: ServiceProcess, idempotencyKey: string, path = '/report') =>
    request(s.url, 'POST', '/mcp/v1/tools/x402_fetch', agentKey, {
      params: { url: `${seller.origin}${path}`, maxAmount: '5', idempotencyKey },
    });
  const balanceOf = async (s: ServiceProcess) =>
    (await request(s.url, 'GET', `/api/v1/agent-wallets/${walletId}`, token)).body.data.balance;
  const transfersToSeller = () =>
    world.usdc.publicClient.getLogs({
      address: world.usdc.address,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      args: { to: PAY_TO },
      fromBlock: 0n,
    });
  const verifyChain = () =>
    spawnSync(process.execPath, [CLI, 'verify-ledger', '--chain'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  before(async () => {
    world = await startEvmWorld();
    seller = await startSeller(world, PAY_TO, { reportMicros: 2_000_000n, echoMicros: 1_000_000n });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-x402-crash-'));
    env = {
      ...evmEnv(world, { CONFIRMATIONS: '1', CHAIN_POLL_INTERVAL_MS: '100', SENDER_LEASE_MS: '1000' }),
      DATA_DIR: dataDir,
      JWT_SECRET: 'x402-crash-test-secret-of-at-least-32-characters',
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
      X402_ALLOW_PRIVATE: 'true',
    };
    const s = await start();
    token = (
      await request(s.url, 'POST', '/api/v1/auth/signup', undefined, {
        email: 'x402-crash@example.test',
        password: 'a long enough password',
      })
    ).body.data.token;
    const master = (await request(s.url, 'GET', '/api/v1/wallet', token)).body.data;
    await world.usdc.mint(master.address, 100_000_000n);
    await waitFor(
      'the deposit is swept to the treasury',
      async () => (await world.usdc.balanceOf(world.treasury)) === 100_000_000n,
      WAIT_MS,
    );
    walletId = (await request(s.url, 'POST', '/api/v1/agent-wallets', token, { label: 'buyer' })).body.data
      .id;
    await request(s.url, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '50' });
    agentKey = (await request(s.url, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, { label: 'k' }))
      .body.data.key;
    await s.stop();
  });
  after(async () => {
    for (const s of started) await s.kill();
    await seller?.close();
    await world?.anvil.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the retry after a restart re-sends the same authorization: paid once, debited once', async () => {
    const s = await start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    const first = await fetchReport(s, 'crash-1').catch((error: unknown) => error);
    assert.ok(first instanceof Error, 'the process died before answering');
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
    assert.equal(seller.paidRequests().length, 0, 'the seller never saw the signed payment');
    const restarted = await start();
    assert.equal(await balanceOf(restarted), '48.000000', 'debited once, before signing');
    const paid = await fetchReport(restarted, 'crash-1');
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data.status, 200);
    assert.match(paid.body.data.body, /the paid content/);
    assert.equal(seller.paidRequests().length, 1);
    assert.equal((await transfersToSeller()).length, 1, 'exactly one transfer on chain');
    assert.equal(await balanceOf(restarted), '48.000000');
    const replay = await fetchReport(restarted, 'crash-1');
    assert.equal(replay.body.data.payment.txId, paid.body.data.payment.txId);
    assert.equal(seller.paidRequests().length, 1, 'a replay asks nothing');
    await mine(world.anvil, 2);
    await waitFor(
      'the payment completes',
      async () => (await fetchReport(restarted, 'crash-1')).body.data.payment.status === 'completed',
      WAIT_MS,
    );
    await restarted.stop();
    const verified = verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });

  test('a seller requiring the payment identifier is paid by the restarted process, with the id of that authorization', async () => {
    const identified = () => seller.identified.filter((p) => p.url?.endsWith('/identified-required'));
    const s = await start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    await fetchReport(s, 'crash-3', '/identified-required').catch(() => undefined);
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
    assert.equal(identified().length, 0, 'nothing was sent before the crash');
    const restarted = await start();
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
    assert.equal((await transfersToSeller()).length, 2, 'the first test’s transfer and this one');
    await mine(world.anvil, 2);
    await waitFor(
      'the payment completes',
      async () =>
        (await fetchReport(restarted, 'crash-3', '/identified-required')).body.data.payment.status ===
        'completed',
      WAIT_MS,
    );
    assert.equal(identified().length, 1, 'replays send nothing');
    await restarted.stop();
    const verified = verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });
  test('an authorization signed and never used comes back after validBefore', async () => {
    const s = await start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    await fetchReport(s, 'crash-2').catch(() => undefined);
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
    const restarted = await start();
    assert.equal(await balanceOf(restarted), '44.000000');
    // Nobody retries. Once a block is past validBefore (at most 300 s ahead) the duty gives the money back.
    await rpc(world.anvil, 'evm_increaseTime', [400]);
    await mine(world.anvil, 1);
    await waitFor('the money is back', async () => (await balanceOf(restarted)) === '46.000000', WAIT_MS);
    assert.equal((await transfersToSeller()).length, 2, 'still only the earlier tests’ transfers');
    await restarted.stop();
    const verified = verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });
});
