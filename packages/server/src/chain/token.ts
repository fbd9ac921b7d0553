// The part of USDC (ERC-20 + EIP-3009, FiatToken v2) this service uses, and the typed data of an EIP-3009
// authorization. Real USDC and the test token (contracts/TestUSDC.sol) answer the same way.
import { parseAbi } from 'viem';
import type { ChainClient } from './client.ts';

export const usdcAbi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'function balanceOf(address account) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function name() view returns (string)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);

export const transferEvent = usdcAbi[0];

/** EIP-3009's struct, as FiatToken v2 hashes it. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** FiatToken v2's EIP-712 domain version; the name is read from the contract (it differs between chains). */
export const USDC_DOMAIN_VERSION = '2';

/**
 * Whether the token has used `authorizer`'s EIP-3009 `nonce` (at `blockNumber`, or the latest block): the one
 * question x402 settlement, expiry and verify-ledger --chain ask the chain.
 */
export function authorizationUsedOnChain(
  client: ChainClient,
  usdcAddress: string,
  authorizer: string,
  nonce: string,
  blockNumber?: bigint,
): Promise<boolean> {
  return client.readContract({
    address: usdcAddress as `0x${string}`,
    abi: usdcAbi,
    functionName: 'authorizationState',
    args: [authorizer as `0x${string}`, nonce as `0x${string}`],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
}
