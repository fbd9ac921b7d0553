// A chain for evm-rail tests: a private anvil, the TestUSDC token, and a fresh service mnemonic whose treasury
// (index 0) holds 1 ETH for gas and nothing else.
import { type Address, numberToHex } from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { type Anvil, deployTestUsdc, rpc, startAnvil, type TestUsdc } from './anvil.ts';

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
