// A chain for evm-rail tests: a private anvil, the TestUSDC token, and a fresh service mnemonic whose treasury
// (index 0) holds 1 ETH for gas and nothing else.
import { type Address, numberToHex } from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { createKey } from './agent.ts';
import { type Anvil, deployTestUsdc, mine, rpc, startAnvil, type TestUsdc } from './anvil.ts';
import type { Harness } from './harness.ts';
import { signupUser, type TestUser } from './http.ts';

export interface EvmWorld {
  anvil: Anvil;
  usdc: TestUsdc;
  mnemonic: string;
  treasury: Address;
}

export async function startEvmWorld(): Promise<EvmWorld> {
  const anvil = await startAnvil();
  const usdc = await deployTestUsdc(anvil);
  const mnemonic = generateMnemonic(english);
  const treasury = mnemonicToAccount(mnemonic, { addressIndex: 0 }).address;
  await rpc(anvil, 'anvil_setBalance', [treasury, numberToHex(10n ** 18n)]);
  return { anvil, usdc, mnemonic, treasury };
}

export function evmEnv(world: EvmWorld, extra: Record<string, string> = {}): Record<string, string> {
  return {
    RAIL: 'evm',
    EVM_RPC_URL: world.anvil.rpcUrl,
    EVM_CHAIN_ID: String(world.anvil.chainId),
    USDC_ADDRESS: world.usdc.address,
    CONFIRMATIONS: '3',
    TREASURY_MNEMONIC: world.mnemonic,
    CHAIN_START_BLOCK: '0',
    TREASURY_MIN_GAS_WEI: '1000000000000000',
    ...extra,
  };
}

export interface EvmBuyer {
  owner: TestUser;
  walletId: string;
  key: string;
}

/**
 * An owner with an agent wallet and its key, the wallet funded from a master deposit of `masterMicros` minted on
 * chain, credited and swept into the treasury (which signs every paid request): what a buyer of x402 or MPP needs.
 */
export async function fundedEvmBuyer(
  h: Harness,
  world: EvmWorld,
  options: { masterMicros: bigint; fund: string; confirmations: number },
): Promise<EvmBuyer> {
  const duties = h.services.chain!.duties;
  const owner = await signupUser(h.app);
  const wallet = await owner.api.post('/api/v1/agent-wallets', { label: 'buyer' });
  const walletId: string = wallet.body.data.id;
  const key = (await createKey(owner, walletId, { label: 'buyer key' })).key;
  const master = (await owner.api.get('/api/v1/wallet')).body.data;
  await world.usdc.mint(master.address, options.masterMicros);
  await mine(world.anvil, options.confirmations);
  await duties.watchDeposits();
  const funded = await owner.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: options.fund });
  if (funded.status !== 200) throw new Error(`funding failed: ${funded.raw}`);
  for (let i = 0; i < 4; i += 1) {
    await duties.send();
    await mine(world.anvil, options.confirmations);
  }
  return { owner, walletId, key };
}
