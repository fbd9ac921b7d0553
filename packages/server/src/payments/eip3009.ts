// USDC's EIP-3009 transferWithAuthorization as the message the treasury signs for a paid request (x402 `exact`,
// MPP `charge`): the token's own EIP-712 domain, the exact amount to the seller, valid until validBefore.
import type { AuthorizationFields, TokenDomain, TypedDataToSign } from './method.ts';

const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export function eip3009TypedData(fields: AuthorizationFields, token: TokenDomain): TypedDataToSign {
  return {
    domain: {
      name: token.name,
      version: token.version,
      chainId: token.chainId,
      verifyingContract: token.usdcAddress as `0x${string}`,
    },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: fields.from,
      to: fields.to,
      value: fields.value,
      validAfter: fields.validAfter,
      validBefore: fields.validBefore,
      nonce: fields.nonce,
    },
  };
}
