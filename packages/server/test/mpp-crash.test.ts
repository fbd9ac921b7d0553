// MPP crash safety, as x402-crash.test.ts for x402: the service a real process SIGKILLed after it signed an MPP
// credential (an EIP-3009 authorization whose nonce is the challenge's hash) and before it repeated the request
// with it. After a restart, paid_fetch with the same idempotency key sends that very credential again (never a
// second one): the seller, mppx's own evm charge, is paid once and the wallet debited once. A credential nobody
// ever uses comes back to the wallet once the chain is past its validity. verify-ledger --chain agrees after each.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Address, getAddress, parseAbiItem } from 'viem';
import { anvilAvailable, mine, rpc } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type MppSeller, startMppSeller } from './support/mpp-seller.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const probe = await anvilAvailable();
const WAIT_MS = 20_000;
const PAY_TO = getAddress('0x00000000000000000000000000000000005e11e6') as Address;

describe('MPP: SIGKILL after signing', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let seller: MppSeller;
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
  const fetchReport = (s: ServiceProcess, idempotencyKey: string) =>
    request(s.url, 'POST', '/mcp/v1/tools/paid_fetch', agentKey, {
      params: { url: `${seller.origin}/report`, maxAmount: '5', idempotencyKey },
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
    seller = await startMppSeller(world, PAY_TO, { reportPrice: '2' });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-mpp-crash-'));
    env = {
      ...evmEnv(world, { CONFIRMATIONS: '1', CHAIN_POLL_INTERVAL_MS: '100', SENDER_LEASE_MS: '1000' }),
      DATA_DIR: dataDir,
      JWT_SECRET: 'mpp-crash-test-secret-of-at-least-32-characters',
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
      X402_ALLOW_PRIVATE: 'true',
    };
    const s = await start();
    token = (
      await request(s.url, 'POST', '/api/v1/auth/signup', undefined, {
        email: 'mpp-crash@example.test',
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

  test('the retry after a restart sends the same credential: paid once, debited once', async () => {
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
    assert.equal(paid.body.data.payment.protocol, 'mpp');
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

  test('a credential signed and never used comes back after its validity', async () => {
    const s = await start({ AGENT_WALLET_TEST_CRASH: 'x402-after-sign' });
    await fetchReport(s, 'crash-2').catch(() => undefined);
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
    const restarted = await start();
    assert.equal(await balanceOf(restarted), '46.000000');
    // Nobody retries. Once a block is past the credential's validity (at most 300 s ahead) the money comes back.
    await rpc(world.anvil, 'evm_increaseTime', [400]);
    await mine(world.anvil, 1);
    await waitFor('the money is back', async () => (await balanceOf(restarted)) === '48.000000', WAIT_MS);
    assert.equal((await transfersToSeller()).length, 1, 'still only the first test’s transfer');
    await restarted.stop();
    const verified = verifyChain();
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  });
});
