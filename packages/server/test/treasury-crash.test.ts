// The bounded treasury set up as an operator does it, with the CLI (deploy-smart-accounts on anvil,
// treasury-prepare, the owners' signatures, treasury-grant), and the refill of the float SIGKILLed after signing
// and after broadcasting: after a restart exactly one redemption is on chain per refill, never two, and
// verify-ledger --chain proves the reserves with the owners' account counted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DelegationManager } from '@metamask/delegation-abis';
import { type Address, getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { anvilAvailable, anvilWalletClient, confirm, mine, rpc } from './support/anvil.ts';
import { owners } from './support/bounded.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { GENEROUS_RATE_LIMITS } from './support/harness.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { waitFor } from './support/service-http.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const probe = await anvilAvailable();
const WAIT_MS = 20_000;
const USDC = 1_000_000n;
const FLOAT_MAX = 40n * USDC;
const ELSEWHERE = '0x00000000000000000000000000000000000e15e0' as Address;

function cli(args: string[], env: Record<string, string>) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('bounded treasury: set up with the CLI, a refill SIGKILLed at each step', {
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
  const float = () => world.usdc.balanceOf(mnemonicToAccount(world.mnemonic, { addressIndex: 0 }).address);
  const redemptions = async () =>
    world.usdc.publicClient.getContractEvents({
      address: getAddress(env.DELEGATION_MANAGER_ADDRESS!),
      abi: DelegationManager,
      eventName: 'RedeemedDelegation',
      fromBlock: 0n,
    });

  before(async () => {
    world = await startEvmWorld();
    dataDir = mkdtempSync(join(tmpdir(), 'agent-wallet-treasury-crash-'));
    const base = {
      ...evmEnv(world, { CONFIRMATIONS: '1', CHAIN_POLL_INTERVAL_MS: '100', SENDER_LEASE_MS: '1000' }),
      DATA_DIR: dataDir,
      JWT_SECRET: 'treasury-crash-test-secret-of-at-least-32-characters',
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
    };
    const deployed = cli(['deploy-smart-accounts'], base);
    assert.equal(deployed.code, 0, deployed.err);
    const lines = deployed.out.trim().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split('=')[0]),
      [
        'DELEGATION_MANAGER_ADDRESS',
        'DELEGATION_FACTORY_ADDRESS',
        'MULTISIG_DELEGATOR_ADDRESS',
        'PERIOD_TRANSFER_ENFORCER_ADDRESS',
        'ENTRY_POINT_ADDRESS',
        'HYBRID_DELEGATOR_ADDRESS',
      ],
    );
    env = {
      ...base,
      ...Object.fromEntries(lines.map((l) => l.split('=') as [string, string])),
      TREASURY_MODE: 'bounded',
      TREASURY_ALLOWANCE: '100',
      TREASURY_FLOAT_MAX: '40',
      TREASURY_OWNERS: owners.map((o) => o.address).join(','),
      TREASURY_THRESHOLD: '2',
    };
    // The first start migrates the database and sets the rail up; then the owners' set-up, service stopped.
    await (await start()).stop();
    const file = join(dataDir, 'delegation.json');
    const prepared = cli(['treasury-prepare', '--out', file], env);
    assert.equal(prepared.code, 0, prepared.err);
    const form = JSON.parse(readFileSync(file, 'utf8'));
    account = form.delegation.delegator;
    form.typedData.message.salt = BigInt(form.typedData.message.salt);
    const signatures = await Promise.all(
      owners
        .slice(1, 3)
        .map(async (o) => ({ signer: o.address, signature: await o.signTypedData(form.typedData) })),
    );
    writeFileSync(file, JSON.stringify({ ...form, typedData: undefined, signatures }));
    const granted = cli(['treasury-grant', '--in', file], env);
    assert.equal(granted.code, 0, granted.err);
    assert.match(granted.out, /delegation tdl_\w+ stored/);
    await world.usdc.mint(account, 500n * USDC);
  });
  after(async () => {
    for (const s of started) await s.kill();
    await world?.anvil.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  for (const step of ['after-sign', 'after-broadcast'] as const) {
    test(`a refill killed ${step.replace('-', ' ')}: one redemption after the restart`, async () => {
      // Empty the float (as a payout would) so that the service refills it.
      const key = mnemonicToAccount(world.mnemonic, { addressIndex: 0 });
      const held = await float();
      if (held > 0n) {
        const wallet = anvilWalletClient(world.anvil, key);
        const hash = await wallet.writeContract({
          address: world.usdc.address,
          abi: world.usdc.abi,
          functionName: 'transfer',
          args: [ELSEWHERE, held],
        });
        await confirm(world.usdc.publicClient, hash, 'emptying the float');
      }
      const before = (await redemptions()).length;
      const s = await start({ AGENT_WALLET_TEST_CRASH: `refill-${step}` });
      await waitFor('the service kills itself', async () => s.child.signalCode === 'SIGKILL', WAIT_MS);
      // The chain stops mining for a while: the restarted service sees its stored refill unmined, the float still
      // empty, for many rounds — it must re-send the one it signed, not redeem again.
      await rpc(world.anvil, 'evm_setAutomine', [false]);
      const restarted = await start();
      await new Promise((done) => setTimeout(done, 1_500));
      await rpc(world.anvil, 'evm_setAutomine', [true]);
      await mine(world.anvil, 1);
      await waitFor('the float is refilled', async () => (await float()) === FLOAT_MAX, WAIT_MS);
      // A few more rounds: nothing is sent twice.
      await new Promise((done) => setTimeout(done, 1_000));
      await restarted.stop();
      assert.equal((await redemptions()).length, before + 1, 'exactly one redemption');
      assert.equal(await float(), FLOAT_MAX);
    });
  }

  test('verify-ledger --chain counts the owners account and knows every redemption', () => {
    const verified = cli(['verify-ledger', '--chain'], env);
    assert.equal(
      verified.code,
      1,
      'the test itself moved the float out twice: transfers the ledger does not know',
    );
    assert.match(verified.err, new RegExp(`to ${ELSEWHERE}: the ledger does not know it`));
    assert.doesNotMatch(verified.err, /redemption .* is not a refill/);
    assert.doesNotMatch(verified.err, /refill obx_\w+ is completed but not on chain/);
  });
});
