#!/usr/bin/env node
// A paid HTTP API for trying x402 on a local chain (docs/agents/paying.md, "A walk-through on anvil"): the same seller the
// tests use — @x402/express's paymentMiddleware and an in-process facilitator from @x402/core + @x402/evm, which
// settles on anvil from anvil's test account 7 (Foundry's well-known test mnemonic: never a real key).
// Local chains only; needs the repository's dev dependencies.
//
//   USDC_ADDRESS=0x… PAY_TO=0x… node packages/server/scripts/x402-seller.ts
//
// Serves GET /report (1.50 USDC), POST /echo (0.50 USDC) and GET /free on http://127.0.0.1:<printed port>.
// EVM_RPC_URL defaults to http://127.0.0.1:8545, EVM_CHAIN_ID to 31337.
import { getAddress } from 'viem';
import type { EvmWorld } from '../test/support/evm.ts';
import { startSeller } from '../test/support/x402-seller.ts';

const usdc = process.env.USDC_ADDRESS;
const payTo = process.env.PAY_TO;
if (usdc === undefined || payTo === undefined) {
  process.stderr.write('set USDC_ADDRESS (the token) and PAY_TO (the address the seller is paid at)\n');
  process.exit(1);
}
const world = {
  anvil: {
    rpcUrl: process.env.EVM_RPC_URL ?? 'http://127.0.0.1:8545',
    chainId: Number(process.env.EVM_CHAIN_ID ?? 31337),
  },
  usdc: { address: getAddress(usdc) },
} as unknown as EvmWorld;
const seller = await startSeller(world, getAddress(payTo), {
  reportMicros: 1_500_000n,
  echoMicros: 500_000n,
});
process.stdout.write(
  `x402 seller on ${seller.origin}: GET /report 1.50 USDC, POST /echo 0.50 USDC, GET /free\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void seller.close().then(() => process.exit(0)));
