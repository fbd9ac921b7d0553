#!/usr/bin/env node
// A metered API for trying x402 `upto` on a local anvil (docs/payments.md, "A metered API on anvil"): puts Permit2
// and a stand-in for x402's upto proxy at their canonical addresses (test/support/permit2.ts: compiled from npm
// sources, cached, never committed), then serves the tests' upto seller — @x402/express with @x402/evm's upto
// server scheme and an in-process upto facilitator that settles from anvil's test account 6 (Foundry's well-known
// test mnemonic: never a real key). Local chains only; needs the repository's dev dependencies.
//
//   USDC_ADDRESS=0x… PAY_TO=0x… node packages/server/scripts/x402-upto-seller.ts
//
// Serves GET /metered?use=<micro-USDC> (at most 2 USDC; it charges what `use` says) on http://127.0.0.1:<port>.
// EVM_RPC_URL defaults to http://127.0.0.1:8545, EVM_CHAIN_ID to 31337.
import { getAddress } from 'viem';
import { ANVIL_MNEMONIC, type Anvil } from '../test/support/anvil.ts';
import type { EvmWorld } from '../test/support/evm.ts';
import { deployUptoContracts } from '../test/support/permit2.ts';
import { startUptoSeller } from '../test/support/x402-upto-seller.ts';

const usdc = process.env.USDC_ADDRESS;
const payTo = process.env.PAY_TO;
if (usdc === undefined || payTo === undefined) {
  process.stderr.write('set USDC_ADDRESS (the token) and PAY_TO (the address the seller is paid at)\n');
  process.exit(1);
}
const anvil = {
  rpcUrl: process.env.EVM_RPC_URL ?? 'http://127.0.0.1:8545',
  chainId: Number(process.env.EVM_CHAIN_ID ?? 31337),
  mnemonic: ANVIL_MNEMONIC,
  stop: async () => {},
} satisfies Anvil;
await deployUptoContracts(anvil);
const world = { anvil, usdc: { address: getAddress(usdc) } } as unknown as EvmWorld;
const seller = await startUptoSeller(world, getAddress(payTo), 2_000_000n);
process.stdout.write(`x402 upto seller on ${seller.origin}: GET /metered?use=<micro-USDC>, at most 2 USDC\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void seller.close().then(() => process.exit(0)));
