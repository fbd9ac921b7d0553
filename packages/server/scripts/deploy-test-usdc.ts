#!/usr/bin/env node
// A local chain for trying the evm rail (docs/operators/evm-rail.md, "A walk-through on a local chain"). Uses anvil's funded test
// account (Foundry's well-known test mnemonic, index 9: never a real key) to deploy TestUSDC, mint test USDC
// and give an address gas. Local chains only.
//
//   node packages/server/scripts/deploy-test-usdc.ts                      # deploy; prints USDC_ADDRESS
//   node packages/server/scripts/deploy-test-usdc.ts mint <address> <usdc> # needs USDC_ADDRESS
//   node packages/server/scripts/deploy-test-usdc.ts gas <address>         # 1 ETH via anvil_setBalance
//
// EVM_RPC_URL defaults to http://127.0.0.1:8545.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Abi, createPublicClient, createWalletClient, type Hex, http, parseUnits } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
const ARTIFACT = resolve(import.meta.dirname, '../contracts/artifacts/TestUSDC.json');
const rpcUrl = process.env.EVM_RPC_URL ?? 'http://127.0.0.1:8545';
const { abi, bytecode } = JSON.parse(readFileSync(ARTIFACT, 'utf8')) as { abi: Abi; bytecode: Hex };
const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 9 });
const transport = http(rpcUrl, { timeout: 10_000 });
const publicClient = createPublicClient({ chain: foundry, transport });
const walletClient = createWalletClient({ chain: foundry, transport, account });

async function deploy(): Promise<void> {
  const hash = await walletClient.deployContract({ abi, bytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  process.stdout.write(`USDC_ADDRESS=${receipt.contractAddress}\n`);
}

async function mint(to: string, amount: string): Promise<void> {
  const token = process.env.USDC_ADDRESS;
  if (token === undefined) throw new Error('set USDC_ADDRESS (printed by the deploy step)');
  const hash = await walletClient.writeContract({
    address: token as Hex,
    abi,
    functionName: 'mint',
    args: [to as Hex, parseUnits(amount, 6)],
  });
  await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  process.stdout.write(`minted ${amount} USDC to ${to} (${hash})\n`);
}

async function gas(address: string): Promise<void> {
  await publicClient.request({
    method: 'anvil_setBalance' as never,
    params: [address, '0xde0b6b3a7640000'] as never,
  });
  process.stdout.write(`${address} now holds 1 ETH\n`);
}

const [command, ...args] = process.argv.slice(2);
const run =
  command === undefined || command === 'deploy'
    ? deploy()
    : command === 'mint' && args.length === 2
      ? mint(args[0]!, args[1]!)
      : command === 'gas' && args.length === 1
        ? gas(args[0]!)
        : Promise.reject(
            new Error('usage: deploy-test-usdc.ts [deploy | mint <address> <usdc> | gas <address>]'),
          );
run.catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
