// What the owners sign for their account (contract section 14, `signRequest`): an ERC-4337 user operation of the
// MultiSigDeleGator — a transfer out of the account above the allowance, the revocation of the service's
// delegation, a change of its owners and threshold — in the EIP-712 form the account verifies (eth_signTypedData_v4 by each owner). The format is ours
// to choose; it is:
// - `typedData`: domain {name "MultiSigDeleGator" (or "HybridDeleGator" for TREASURY_ACCOUNT_KIND=hybrid), version
//   "1", chainId, verifyingContract: the account}, primary type PackedUserOperation {sender, nonce, initCode, callData, accountGasLimits, preVerificationGas, gasFees,
//   paymasterAndData, entryPoint};
// - the nonce uses the EntryPoint's two-dimensional nonces: its key (the upper 192 bits) comes from the request's
//   id, so two requests waiting for signatures never share a nonce and are executed in whatever order they are
//   signed;
// - `digest` is that typed data's hash, what the account validates: a passkey of a hybrid account signs it as the
//   WebAuthn challenge (its base64url form), and the owner's key with eth_signTypedData_v4;
// - gas fees are zero: the account pays the EntryPoint nothing, and the service, submitting handleOps from its own
//   key, pays the gas — so a rise in fees never invalidates what the owners signed.
import { EntryPoint, MultiSigDeleGator } from '@metamask/delegation-abis';
import {
  concat,
  encodeFunctionData,
  type Hex,
  hashTypedData,
  keccak256,
  pad,
  recoverTypedDataAddress,
  toHex,
} from 'viem';
import type { ChainClient } from '../client.ts';
import { usdcAbi } from '../token.ts';
import type { AccountKind } from './bounded-config.ts';
import { type Address, multiSigSignature, type SignedDelegation } from './delegation.ts';

/** Gas the account's own checks (the owners' signatures) and its call may use; paid by the service. */
const VERIFICATION_GAS = 600_000n;
const CALL_GAS = 300_000n;
/** What each new owner adds to a change of owners (its place in the list and in the account's map of owners). */
const CALL_GAS_PER_OWNER = 60_000n;

/** Gas for the account's call: a change of owners writes a slot or two per owner, anything else a transfer. */
export function callGasFor(newOwners: number): bigint {
  return CALL_GAS + CALL_GAS_PER_OWNER * BigInt(newOwners);
}
const PRE_VERIFICATION_GAS = 60_000n;

export const userOperationTypes = {
  PackedUserOperation: [
    { name: 'sender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'initCode', type: 'bytes' },
    { name: 'callData', type: 'bytes' },
    { name: 'accountGasLimits', type: 'bytes32' },
    { name: 'preVerificationGas', type: 'uint256' },
    { name: 'gasFees', type: 'bytes32' },
    { name: 'paymasterAndData', type: 'bytes' },
    { name: 'entryPoint', type: 'address' },
  ],
} as const;

export interface PackedOperation {
  sender: Address;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  accountGasLimits: Hex;
  preVerificationGas: bigint;
  gasFees: Hex;
  paymasterAndData: Hex;
}

/** Two uint128 in one bytes32, high first (the operation's gas limits and fees). */
export const twoUint128 = (high: bigint, low: bigint) =>
  concat([pad(toHex(high), { size: 16 }), pad(toHex(low), { size: 16 })]);

/** The EntryPoint nonce key of a request: 192 bits of the hash of its id. */
export function nonceKeyOf(requestId: string): bigint {
  return BigInt(keccak256(toHex(`agent-wallet owners request ${requestId}`))) >> 64n;
}

/** The account's call that transfers USDC out of it (its own execute, single mode). */
export function transferCallData(usdc: Address, to: Address, amountMicros: bigint): Hex {
  const transfer = encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [to, amountMicros] });
  return encodeFunctionData({
    abi: MultiSigDeleGator,
    functionName: 'execute',
    args: [{ target: usdc, value: 0n, callData: transfer }],
  });
}

/** The account's call that revokes a delegation it granted. */
export function revokeCallData(delegation: SignedDelegation): Hex {
  return encodeFunctionData({
    abi: MultiSigDeleGator,
    functionName: 'disableDelegation',
    args: [delegation],
  });
}

/** The operation for `callData` with the EntryPoint's next nonce under this request's key. */
export async function ownersOperation(
  client: ChainClient,
  entryPoint: Address,
  account: Address,
  requestId: string,
  callData: Hex,
  callGas: bigint = CALL_GAS,
): Promise<PackedOperation> {
  const nonce = await client.readContract({
    address: entryPoint,
    abi: EntryPoint,
    functionName: 'getNonce',
    args: [account, nonceKeyOf(requestId)],
  });
  return {
    sender: account,
    nonce,
    initCode: '0x',
    callData,
    accountGasLimits: twoUint128(VERIFICATION_GAS, callGas),
    preVerificationGas: PRE_VERIFICATION_GAS,
    gasFees: twoUint128(0n, 0n),
    paymasterAndData: '0x',
  };
}

/** The EIP-712 domain name each kind of account verifies its user operations under. */
const DOMAIN_NAMES: Record<AccountKind, string> = {
  multisig: 'MultiSigDeleGator',
  hybrid: 'HybridDeleGator',
};

/** The `signRequest` handed to the owners: what each signs with eth_signTypedData_v4, and its digest. */
export function signRequestOf(
  operation: PackedOperation,
  entryPoint: Address,
  chainId: number,
  kind: AccountKind,
) {
  const typedData = {
    domain: { name: DOMAIN_NAMES[kind], version: '1', chainId, verifyingContract: operation.sender },
    types: userOperationTypes,
    primaryType: 'PackedUserOperation' as const,
    message: { ...operation, entryPoint },
  };
  return { typedData, digest: hashTypedData(typedData) };
}

/** The owner who signed this request, or null (a non-owner, or a signature over something else). */
export async function signingOwner(
  signRequest: ReturnType<typeof signRequestOf>,
  signature: Hex,
  owners: readonly Address[],
): Promise<Address | null> {
  let signer: Address;
  try {
    signer = (
      await recoverTypedDataAddress({ ...signRequest.typedData, signature })
    ).toLowerCase() as Address;
  } catch {
    return null;
  }
  return owners.some((o) => o.toLowerCase() === signer) ? signer : null;
}

/** The service's transaction that submits the signed operation (it pays the gas; the beneficiary is itself). */
export function handleOpsCall(
  entryPoint: Address,
  operation: PackedOperation,
  signatures: ReadonlyArray<{ signer: Address; signature: Hex }>,
  beneficiary: Address,
): { to: Address; data: Hex } {
  const data = encodeFunctionData({
    abi: EntryPoint,
    functionName: 'handleOps',
    args: [[{ ...operation, signature: multiSigSignature(signatures) }], beneficiary],
  });
  return { to: entryPoint, data };
}
