// The owners' side of a bounded treasury in tests: the framework deployed on anvil with its npm bytecode, owners
// who are anvil test keys, their signatures over the delegation, and a transaction of the account (a user operation
// through the framework's EntryPoint) signed by owners — or by anyone else, for the breach drill.
import { EntryPoint, MultiSigDeleGator } from '@metamask/delegation-abis';
import { type Address, encodeFunctionData, type Hex, numberToHex } from 'viem';
import { type HDAccount, mnemonicToAccount } from 'viem/accounts';
import {
  deployFramework,
  grantDelegation,
  prepareDelegation,
} from '../../src/chain/bounded/bounded-setup.ts';
import { multiSigSignature, type SignedDelegation } from '../../src/chain/bounded/delegation.ts';
import { twoUint128, userOperationTypes } from '../../src/chain/bounded/owners-ops.ts';
import { parseEvmConfig } from '../../src/chain/config.ts';
import { serviceKeys } from '../../src/chain/keys.ts';
import { ANVIL_MNEMONIC, anvilPublicClient, anvilWalletClient, confirm, mine, rpc } from './anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './evm.ts';
import { type Harness, type StoreName, startHarness } from './harness.ts';
import { signupUser, type TestUser } from './http.ts';

/** Owners are anvil's funded accounts 1..3 (the token's deployer is 9, the service has its own mnemonic). */
export const owners: HDAccount[] = [1, 2, 3].map((i) =>
  mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i }),
);

export interface Framework {
  env: Record<string, string>;
  entryPoint: Address;
}

/** `agent-wallet deploy-smart-accounts`, as the CLI runs it, paid by the service's key. */
export async function deployFrameworkFor(world: EvmWorld): Promise<Framework> {
  const config = parseEvmConfig(
    {
      EVM_RPC_URL: world.anvil.rpcUrl,
      EVM_CHAIN_ID: String(world.anvil.chainId),
      USDC_ADDRESS: world.usdc.address,
      TREASURY_MNEMONIC: world.mnemonic,
    },
    '/nonexistent',
  );
  const deployed = await deployFramework(anvilPublicClient(world.anvil), config, serviceKeys(world.mnemonic));
  const env = Object.fromEntries(deployed.lines.map((line) => line.split('=') as [string, string]));
  return { env, entryPoint: deployed.entryPoint };
}

/**
 * The account calls itself with `callData` (e.g. disableDelegation, or execute for a transfer) in a user operation
 * signed by `signers`, submitted to the EntryPoint by `submitter` (an anvil account that pays the gas).
 */
export async function accountOperation(
  world: EvmWorld,
  framework: Framework,
  account: Address,
  callData: Hex,
  signers: readonly HDAccount[],
  submitter: HDAccount = owners[0]!,
): Promise<Hex> {
  const publicClient = anvilPublicClient(world.anvil);
  // The account pays the EntryPoint for its own operation.
  await rpc(world.anvil, 'anvil_setBalance', [account, numberToHex(10n ** 18n)]);
  const nonce = await publicClient.readContract({
    address: framework.entryPoint,
    abi: EntryPoint,
    functionName: 'getNonce',
    args: [account, 0n],
  });
  const op = {
    sender: account,
    nonce,
    initCode: '0x' as Hex,
    callData,
    accountGasLimits: twoUint128(1_000_000n, 1_000_000n),
    preVerificationGas: 100_000n,
    gasFees: twoUint128(10n ** 9n, 20n * 10n ** 9n),
    paymasterAndData: '0x' as Hex,
  };
  const typedData = {
    domain: {
      name: 'MultiSigDeleGator',
      version: '1',
      chainId: world.anvil.chainId,
      verifyingContract: account,
    },
    types: userOperationTypes,
    primaryType: 'PackedUserOperation' as const,
    message: { ...op, entryPoint: framework.entryPoint },
  };
  const parts = await Promise.all(
    signers.map(async (s) => ({ signer: s.address, signature: await s.signTypedData(typedData) })),
  );
  const wallet = anvilWalletClient(world.anvil, submitter);
  const hash = await wallet.writeContract({
    address: framework.entryPoint,
    abi: EntryPoint,
    functionName: 'handleOps',
    args: [[{ ...op, signature: multiSigSignature(parts) }], submitter.address],
    gas: 3_000_000n,
  });
  await confirm(publicClient, hash, 'handleOps');
  return hash;
}

/** The owners revoke the service's delegation: the account's own disableDelegation, at their threshold. */
export function revokeCallData(delegation: SignedDelegation): Hex {
  return encodeFunctionData({
    abi: MultiSigDeleGator,
    functionName: 'disableDelegation',
    args: [delegation],
  });
}

/** The account executes one call (ERC-7579 single mode): a USDC transfer out, say. */
export function executeCallData(target: Address, data: Hex): Hex {
  return encodeFunctionData({
    abi: MultiSigDeleGator,
    functionName: 'execute',
    args: [{ target, value: 0n, callData: data }],
  });
}

/** A harness on `evm` in bounded mode with its delegation granted by owners 1 and 3 and the account funded. */
export async function startBoundedWorld(
  store: StoreName,
  label: string,
  options: { allowance: string; floatMax: string; fundMicros: bigint; env?: Record<string, string> },
): Promise<{ world: EvmWorld; framework: Framework; h: Harness; account: Address }> {
  const world = await startEvmWorld();
  const framework = await deployFrameworkFor(world);
  const h = await startHarness(store, label, {
    env: evmEnv(world, {
      ...framework.env,
      CONFIRMATIONS: '1',
      TREASURY_MODE: 'bounded',
      TREASURY_ALLOWANCE: options.allowance,
      TREASURY_FLOAT_MAX: options.floatMax,
      TREASURY_OWNERS: owners.map((o) => o.address).join(','),
      TREASURY_THRESHOLD: '2',
      ...options.env,
    }),
  });
  const rail = h.services.chain!.rail;
  const deps = { db: h.services.store.db, client: rail.client, config: rail.config, keys: rail.keys };
  const prepared = await prepareDelegation(deps);
  const signatures = await Promise.all(
    [owners[0]!, owners[2]!].map(async (o) => ({
      signer: o.address,
      signature: await o.signTypedData(prepared.typedData),
    })),
  );
  await grantDelegation(deps, { delegation: prepared.delegation, signatures }, h.clock.nowMs());
  const account = prepared.delegation.delegator;
  await world.usdc.mint(account, options.fundMicros);
  return { world, framework, h, account };
}

/** A withdrawal's 202: what the owners sign. */
export interface AwaitingSignatures {
  id: string;
  signRequest: { typedData: Parameters<HDAccount['signTypedData']>[0]; digest: string };
}

/**
 * A withdrawal of `user` the allowance cannot cover (over HTTP, as the owner asks it): USDC minted to their master
 * address and credited, an active address in their book, then `amount` withdrawn → 202 awaiting_signatures.
 */
export async function awaitingWithdrawal(
  h: Harness,
  world: EvmWorld,
  user: TestUser,
  amount: string,
  recipient: Address,
): Promise<AwaitingSignatures> {
  const master = (await user.api.get('/api/v1/wallet')).body.data;
  await world.usdc.mint(master.address, BigInt(Math.ceil(Number(amount))) * 1_000_000n);
  await mine(world.anvil, 1);
  await h.services.chain!.duties.watchDeposits();
  for (let i = 0; i < 2; i += 1) {
    await h.services.chain!.duties.send();
    await mine(world.anvil, 1);
  }
  const added = await user.api.post('/api/v1/wallet/withdrawal-addresses', {
    address: recipient,
    label: 'cold',
  });
  if (added.status !== 201) throw new Error(`address book: ${added.status} ${added.raw}`);
  const asked = await user.api.post('/api/v1/wallet/withdrawals', { toAddress: recipient, amount });
  if (asked.status !== 202) throw new Error(`withdrawal: ${asked.status} ${asked.raw}`);
  return asked.body.data;
}

/**
 * A bounded world (allowance 10, float at most 5, the account funded with 1,000) whose owner has three withdrawals
 * waiting for the owners — 60, 70 and 80 USDC, asked a second apart — and `ask` for more the same way.
 */
export async function boundedWithWaitingWithdrawals(store: StoreName, label: string) {
  const { world, h } = await startBoundedWorld(store, label, {
    allowance: '10',
    floatMax: '5',
    fundMicros: 1_000n * 1_000_000n,
    env: { WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0' },
  });
  const owner = await signupUser(h.app);
  /** The owner's withdrawal of `amount` to 0x`to`×20, a second later than the one before. */
  const ask = async (amount: string, to: string): Promise<AwaitingSignatures> => {
    h.clock.advanceSeconds(1);
    return awaitingWithdrawal(h, world, owner, amount, `0x${to.repeat(20)}` as Address);
  };
  const asked: AwaitingSignatures[] = [];
  for (const [amount, to] of [
    ['60', 'a1'],
    ['70', 'b2'],
    ['80', 'c3'],
  ] as const)
    asked.push(await ask(amount, to));
  return { world, h, owner, asked, ask };
}
