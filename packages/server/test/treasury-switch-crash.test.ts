// The switch of a hot treasury to bounded is crash-safe, with real processes: the service's key holds a hot
// treasury; the owners' set-up runs with the CLI (treasury-grant says what the switch will move); the service started
// with TREASURY_MODE=bounded is SIGKILLed after signing, then after broadcasting, its transfer of the excess into the
// owners' account (a float_return). After each restart exactly one such transfer is on chain, the account holds the
// excess and the float TREASURY_FLOAT_MAX; verify-ledger --chain matches every return to its row.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Address, getAddress, parseAbiItem } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { anvilAvailable, mine, rpc } from './support/anvil.ts';
import { owners } from './support/bounded.ts';
import { boundedCliEnv, deployWithCli, grantWithCli } from './support/bounded-cli.ts';
import { type EvmWorld, startEvmWorld } from './support/evm.ts';
import { runCli, type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { waitFor } from './support/service-http.ts';

const probe = await anvilAvailable();
const WAIT_MS = 20_000;
const USDC = 1_000_000n;
const FLOAT_MAX = 40n * USDC;
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

describe('switching hot to bounded: the move into the account SIGKILLed at each step', {
  skip: probe.available ? false : probe.skip,
}, () => {
  let world: EvmWorld;
  let dataDir: string;
  let env: Record<string, string>;
  let account: Address;
  const started: ServiceProcess[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const s = await startServiceProcess({ ...env, ...extra });
    started.push(s);
    return s;
  };
  const key = () => mnemonicToAccount(world.mnemonic, { addressIndex: 0 }).address;
  const returns = async () =>
    world.usdc.publicClient.getLogs({
      address: world.usdc.address,
      event: transferEvent,
      args: { from: key(), to: getAddress(account) },
      fromBlock: 0n,
    });

  before(async () => {
    world = await startEvmWorld();
    dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-switch-crash-'));
    const { base, deployed } = await deployWithCli(world, dataDir);
    // The hot deployment: it has run, and its key holds the treasury.
    await (await start(base)).stop();
    await world.usdc.mint(key(), 500n * USDC);
    env = boundedCliEnv(base, deployed);
    const grant = await grantWithCli(env, owners.slice(0, 2));
    account = grant.account;
    assert.match(
      grant.granted,
      /holds 500\.000000 USDC \(a hot treasury\): once the service runs with TREASURY_MODE=bounded, its first rounds move 460\.000000 USDC into the owners' account/,
    );
  });
  after(async () => {
    for (const s of started) await s.kill();
    await world?.anvil.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  const cases = [
    { step: 'after-sign', movedMicros: 460n * USDC, topUpMicros: 0n },
    // A hot sweep landing late (here: USDC straight to the key) is returned the same way.
    { step: 'after-broadcast', movedMicros: 100n * USDC, topUpMicros: 100n * USDC },
  ] as const;
  for (const { step, movedMicros, topUpMicros } of cases) {
    test(`the move killed ${step.replace('-', ' ')}: one transfer into the account after the restart`, async () => {
      if (topUpMicros > 0n) await world.usdc.mint(key(), topUpMicros);
      const before = await returns();
      const accountBefore = await world.usdc.balanceOf(account);
      const s = await start({ AGENT_WALLET_TEST_CRASH: `float_return-${step}` });
      await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
      // The chain stops mining for a while: the restarted service sees its stored transfer unmined and the float
      // still full for many rounds — it must re-send the one it signed, not queue another.
      await rpc(world.anvil, 'evm_setAutomine', [false]);
      const restarted = await start();
      await new Promise((done) => setTimeout(done, 1_500));
      await rpc(world.anvil, 'evm_setAutomine', [true]);
      await mine(world.anvil, 1);
      await waitFor(
        'the float is down to its ceiling',
        async () => (await world.usdc.balanceOf(key())) === FLOAT_MAX,
        WAIT_MS,
      );
      await new Promise((done) => setTimeout(done, 1_000));
      await restarted.stop();
      const after = await returns();
      assert.equal(after.length, before.length + 1, 'exactly one transfer into the account');
      assert.equal(after.at(-1)!.args.value, movedMicros);
      assert.equal(await world.usdc.balanceOf(account), accountBefore + movedMicros);
      assert.equal(await world.usdc.balanceOf(key()), FLOAT_MAX);
    });
  }

  test('verify-ledger --chain matches every move into the account to its row', async () => {
    const verified = await runCli(['verify-ledger', '--chain'], env);
    // The test minted the hot treasury straight to the key (no deposit through a wallet): those two transfers are
    // the only ones the ledger does not know.
    assert.equal(verified.code, 1);
    const problems = verified.stderr.split('\n').filter((l) => l.startsWith('  - '));
    assert.equal(problems.length, 2, verified.stderr);
    for (const problem of problems)
      assert.match(
        problem,
        /from 0x0000000000000000000000000000000000000000 to .*: the ledger does not know it/,
      );
    assert.doesNotMatch(verified.stderr, /float_return obx_\w+ is completed but not on chain/);
  });
});
