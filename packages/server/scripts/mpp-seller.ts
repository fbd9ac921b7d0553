#!/usr/bin/env node
// A paid HTTP API for trying MPP on a local chain (docs/agents/paying.md, "MPP on anvil"): the seller the tests use
// (test/support/mpp-seller.ts) — mppx/server's `evm` `charge` method answering 402 with `WWW-Authenticate: Payment`
// challenges for USDC on this chain, taking EIP-3009 `authorization` credentials and settling them on anvil itself
// (transferWithAuthorization) from anvil's test account 8 (Foundry's well-known test mnemonic: never a real key)
// before answering with a `Payment-Receipt`. Local chains only; needs the repository's dev dependencies.
//
//   USDC_ADDRESS=0x… PAY_TO=0x… node packages/server/scripts/mpp-seller.ts
//
// Serves GET /report (1.50 USDC) and GET /free on http://127.0.0.1:<printed port>. OFFER_X402=true also offers x402
// `exact` at the same price in the same 402, as a default mppx seller does. EVM_RPC_URL defaults to
// http://127.0.0.1:8545, EVM_CHAIN_ID to 31337.
import { getAddress } from 'viem';
import type { EvmWorld } from '../test/support/evm.ts';
import { startMppSeller } from '../test/support/mpp-seller.ts';

/** Not 6 or 7: the x402 sellers' facilitators (scripts/x402-seller.ts, x402-upto-seller.ts) pay gas from those. */
const GAS_ACCOUNT_INDEX = 8;

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
const offerX402 = process.env.OFFER_X402 === 'true';
const seller = await startMppSeller(world, getAddress(payTo), {
  reportPrice: '1.5',
  offerX402,
  gasAccountIndex: GAS_ACCOUNT_INDEX,
});
process.stdout.write(
  `MPP seller on ${seller.origin}: GET /report 1.50 USDC (MPP evm charge${offerX402 ? ', and x402 exact' : ''}), GET /free\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void seller.close().then(() => process.exit(0)));
