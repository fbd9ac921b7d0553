// The bounded treasury set up as an operator does it, with the CLI (deploy-smart-accounts on anvil,
// treasury-prepare, the owners' signatures, treasury-grant), and the refill of the float SIGKILLed after signing
// and after broadcasting: after a restart exactly one redemption is on chain per refill, never two, and
// verify-ledger --chain proves the reserves with the owners' account counted.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DelegationManager } from '@metamask/delegation-abis';
import { type Address, getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { anvilAvailable, anvilWalletClient, confirm, mine, rpc } from './support/anvil.ts';
import { owners } from './support/bounded.ts';
import { boundedCliEnv, deployWithCli, grantWithCli } from './support/bounded-cli.ts';
import { type EvmWorld, startEvmWorld } from './support/evm.ts';
import { runCli, type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { waitFor } from './support/service-http.ts';

const probe = await anvilAvailable();
const WAIT_MS = 20_000;
const USDC = 1_000_000n;
const FLOAT_MAX = 40n * USDC;
const ELSEWHERE = '0x00000000000000000000000000000000000e15e0' as Address;

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
    const { base, deployed } = await deployWithCli(world, dataDir);
    assert.deepEqual(
      deployed.map(([name]) => name),
      [
        'DELEGATION_MANAGER_ADDRESS',
        'DELEGATION_FACTORY_ADDRESS',
        'MULTISIG_DELEGATOR_ADDRESS',
        'PERIOD_TRANSFER_ENFORCER_ADDRESS',
        'ENTRY_POINT_ADDRESS',
        'HYBRID_DELEGATOR_ADDRESS',
      ],
    );
    env = boundedCliEnv(base, deployed);
    // The first start migrates the database and sets the rail up; then the owners' set-up, service stopped.
    await (await start()).stop();
    const grant = await grantWithCli(env, owners.slice(1, 3));
    account = grant.account;
    assert.match(grant.granted, /delegation tdl_\w+ stored/);
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

  test('verify-ledger --chain counts the owners account and knows every redemption', async () => {
    const verified = await runCli(['verify-ledger', '--chain'], env);
    assert.equal(
      verified.code,
      1,
      'the test itself moved the float out twice: transfers the ledger does not know',
    );
    assert.match(verified.stderr, new RegExp(`to ${ELSEWHERE}: the ledger does not know it`));
    assert.doesNotMatch(verified.stderr, /redemption .* is not a refill/);
    assert.doesNotMatch(verified.stderr, /refill obx_\w+ is completed but not on chain/);
  });
});
