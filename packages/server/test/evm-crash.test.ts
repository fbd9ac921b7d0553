// The evm rail's crash safety, with the service as a real process SIGKILLed after the debit (before anything is
// signed), after signing (stored, not broadcast) and after broadcast (before the confirmation is recorded).
// After a restart exactly one transfer is on chain, the payment is completed with its hash, and
// `verify-ledger --chain` proves reserves — and fails on a tampered ledger or a transfer it does not know.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Address, parseAbiItem } from 'viem';
import { anvilAvailable, mine } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const probe = await anvilAvailable();
const WAIT_MS = 20_000;

function cliVerify(env: Record<string, string>) {
  return spawnSync(process.execPath, [CLI, 'verify-ledger', '--chain'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('evm rail: SIGKILL at every step of a payout', {
  skip: probe.available ? false : probe.skip,
}, () => {
  let world: EvmWorld;
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  const started: ServiceProcess[] = [];
  let agentKey: string;

  const start = async (extra: Record<string, string> = {}) => {
    service = await startServiceProcess({ ...env, ...extra });
    started.push(service);
    return service;
  };
  const transfersTo = async (to: Address) =>
    world.usdc.publicClient.getLogs({
      address: world.usdc.address,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      args: { to },
      fromBlock: 0n,
    });
  const txOf = async (txId: string) => {
    const history = await request(service!.url, 'POST', '/mcp/v1/tools/get_tx_history', agentKey, {
      params: { limit: 100 },
    });
    return history.body.data.transactions.find((t: { id: string }) => t.id === txId);
  };

  before(async () => {
    world = await startEvmWorld();
    dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-evm-crash-'));
    env = {
      ...evmEnv(world, { CONFIRMATIONS: '1', CHAIN_POLL_INTERVAL_MS: '100', SENDER_LEASE_MS: '1000' }),
      DATA_DIR: dataDir,
      JWT_SECRET: 'evm-crash-test-secret-of-at-least-32-characters',
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
    };
    const s = await start();
    const signup = await request(s.url, 'POST', '/api/v1/auth/signup', undefined, {
      email: 'crash@example.test',
      password: 'a long enough password',
    });
    const token = signup.body.data.token;
    const master = (await request(s.url, 'GET', '/api/v1/wallet', token)).body.data;
    await world.usdc.mint(master.address, 500_000_000n);
    await waitFor(
      'the deposit is credited',
      async () => (await request(s.url, 'GET', '/api/v1/wallet', token)).body.data.balance === '500.000000',
      WAIT_MS,
    );
    await waitFor(
      'the deposit is swept',
      async () => (await world.usdc.balanceOf(world.treasury)) === 500_000_000n,
      WAIT_MS,
    );
    const wallet = (await request(s.url, 'POST', '/api/v1/agent-wallets', token, { label: 'payer' })).body
      .data;
    await request(s.url, 'POST', `/api/v1/agent-wallets/${wallet.id}/fund`, token, { amount: '300' });
    agentKey = (
      await request(s.url, 'POST', `/api/v1/agent-wallets/${wallet.id}/keys`, token, { label: 'k' })
    ).body.data.key;
    await s.stop();
  });
  after(async () => {
    for (const s of started) await s.kill();
    await world?.anvil.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  const cases: Array<{ name: string; crashEnv: Record<string, string>; recipient: Address }> = [
    {
      name: 'after the debit, before signing',
      crashEnv: { CHAIN_POLL_INTERVAL_MS: '600000' },
      recipient: '0x000000000000000000000000000000000000a001',
    },
    {
      name: 'after signing, before broadcast',
      crashEnv: { AGENT_WALLET_TEST_CRASH: 'payout-after-sign' },
      recipient: '0x000000000000000000000000000000000000a002',
    },
    {
      name: 'after broadcast, before confirmation',
      crashEnv: { AGENT_WALLET_TEST_CRASH: 'payout-after-broadcast' },
      recipient: '0x000000000000000000000000000000000000a003',
    },
  ];
  for (const c of cases) {
    test(`killed ${c.name}: exactly one transfer after restart`, async () => {
      const s = await start(c.crashEnv);
      const paid = await request(s.url, 'POST', '/mcp/v1/tools/send_payment', agentKey, {
        params: { toAddress: c.recipient, amount: '7', idempotencyKey: `crash-${c.recipient}` },
      });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal(paid.body.data.status, 'processing');
      if (c.crashEnv.AGENT_WALLET_TEST_CRASH === undefined) await s.kill();
      else await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
      const restarted = await start();
      await waitFor(
        'the payment completes',
        async () => (await txOf(paid.body.data.txId))?.status === 'completed',
        WAIT_MS,
      );
      const logs = await transfersTo(c.recipient);
      assert.equal(logs.length, 1, 'exactly one transfer on chain');
      assert.equal(logs[0]!.args.value, 7_000_000n);
      assert.equal((await txOf(paid.body.data.txId)).txHash, logs[0]!.transactionHash);
      const replay = await request(restarted.url, 'POST', '/mcp/v1/tools/send_payment', agentKey, {
        params: { toAddress: c.recipient, amount: '7', idempotencyKey: `crash-${c.recipient}` },
      });
      assert.equal(replay.body.data.txId, paid.body.data.txId, 'a retry replays, never pays again');
      await restarted.stop();
      const verified = cliVerify(env);
      assert.equal(verified.status, 0, verified.stdout + verified.stderr);
      assert.match(verified.stdout, /chain OK/);
    });
  }

  test('a master withdrawal killed after signing, before broadcast: paid once, completed after restart', async () => {
    const recipient = '0x000000000000000000000000000000000000b001' as Address;
    const s = await start({
      AGENT_WALLET_TEST_CRASH: 'payout-after-sign',
      WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0',
    });
    const token = (
      await request(s.url, 'POST', '/api/v1/auth/login', undefined, {
        email: 'crash@example.test',
        password: 'a long enough password',
      })
    ).body.data.token;
    const added = await request(s.url, 'POST', '/api/v1/wallet/withdrawal-addresses', token, {
      address: recipient,
      label: 'exchange',
    });
    assert.equal(added.body.data.status, 'active', JSON.stringify(added.body));
    const body = { toAddress: recipient, amount: '5', idempotencyKey: 'master-withdrawal-crash' };
    const withdrawn = await request(s.url, 'POST', '/api/v1/wallet/withdrawals', token, body);
    assert.equal(withdrawn.status, 201, JSON.stringify(withdrawn.body));
    assert.equal(withdrawn.body.data.status, 'processing');
    await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
    const restarted = await start();
    const id = withdrawn.body.data.id;
    await waitFor(
      'the withdrawal completes',
      async () =>
        (await request(restarted.url, 'GET', `/api/v1/wallet/withdrawals/${id}`, token)).body.data.status ===
        'completed',
      WAIT_MS,
    );
    const logs = await transfersTo(recipient);
    assert.equal(logs.length, 1, 'exactly one transfer on chain');
    assert.equal(logs[0]!.args.value, 5_000_000n);
    const shown = (await request(restarted.url, 'GET', `/api/v1/wallet/withdrawals/${id}`, token)).body.data;
    assert.equal(shown.txHash, logs[0]!.transactionHash);
    const replay = await request(restarted.url, 'POST', '/api/v1/wallet/withdrawals', token, body);
    assert.equal(replay.body.data.id, id, 'a retry replays, never pays again');
    await restarted.stop();
    assert.equal((await transfersTo(recipient)).length, 1);
    const verified = cliVerify(env);
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /chain OK/);
  });

  test('killed while a deposit is seen but not yet deep enough: credited once after restarts', async () => {
    const deep = { CONFIRMATIONS: '4' };
    const s = await start(deep);
    const signup = await request(s.url, 'POST', '/api/v1/auth/signup', undefined, {
      email: 'deposit-crash@example.test',
      password: 'a long enough password',
    });
    const token = signup.body.data.token;
    const master = (await request(s.url, 'GET', '/api/v1/wallet', token)).body.data;
    await world.usdc.mint(master.address, 9_000_000n);
    await waitFor(
      'the deposit is seen, pending',
      async () =>
        (await request(s.url, 'GET', '/api/v1/wallet/deposits/pending', token)).body.data.total === 1,
      WAIT_MS,
    );
    await s.kill();
    await mine(world.anvil, 4);
    const again = await start(deep);
    await waitFor(
      'the deposit is credited',
      async () => (await request(again.url, 'GET', '/api/v1/wallet', token)).body.data.balance === '9.000000',
      WAIT_MS,
    );
    await again.kill();
    const third = await start(deep);
    await mine(world.anvil, 4);
    await waitFor(
      'the watcher has moved past it again',
      async () =>
        (await request(third.url, 'GET', '/api/v1/wallet/deposits/pending', token)).body.data.total === 0,
      WAIT_MS,
    );
    const deposits = (await request(third.url, 'GET', '/api/v1/wallet/deposits', token)).body.data;
    assert.equal(deposits.total, 1, 'credited exactly once');
    assert.equal((await request(third.url, 'GET', '/api/v1/wallet', token)).body.data.balance, '9.000000');
    await third.stop();
  });

  test('verify-ledger --chain fails on a transfer the ledger does not know', async () => {
    await world.usdc.mint(world.treasury, 1_000_000n);
    const verified = cliVerify(env);
    assert.equal(verified.status, 1, verified.stdout + verified.stderr);
    assert.match(verified.stderr, /chain BROKEN[\s\S]*the ledger does not know it/);
  });

  test('verify-ledger --chain fails on a ledger that claims more than the chain holds', async () => {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(dataDir, 'agent-wallet.sqlite'));
    try {
      // A forged deposit record: the ledger balances, but the chain never saw it.
      db.prepare(
        `insert into chain_deposits (id, chain_id, tx_hash, log_index, block_number, wallet_id, from_address, to_address, amount_micros, status, created_at_ms, updated_at_ms)
         select 'cdp_forged', 31337, '0x' || printf('%064d', 1), 0, 1, id, '0x0000000000000000000000000000000000000001', address, 5000000, 'credited', 0, 0 from wallets limit 1`,
      ).run();
    } finally {
      db.close();
    }
    const verified = cliVerify(env);
    assert.equal(verified.status, 1, verified.stdout + verified.stderr);
    assert.match(verified.stderr, /credited deposit 0x0+1:0 is not on chain/);
  });
});
