// The bounded treasury on chain, with the MetaMask Delegation Framework's ABIs and bytecode from npm
// (@metamask/delegation-abis) and its encoders (@metamask/delegation-core): the owners' MultiSigDeleGator account
// (an ERC-1967 proxy deployed by the framework's SimpleFactory at a CREATE2 address), the delegation to the
// service's key with its ERC20PeriodTransferEnforcer caveat, the EIP-712 form the owners sign, and the one call the
// service makes with it: DelegationManager.redeemDelegations, a USDC transfer from the account to the float.
// The smart-accounts kit is not loaded here: it reports usage to MetaMask unless DO_NOT_TRACK is set, and a
// self-hosted wallet phones nobody.
import { randomBytes } from 'node:crypto';
import {
  DelegationManager,
  ERC20PeriodTransferEnforcer,
  ERC1967Proxy,
  HybridDeleGator,
  MultiSigDeleGator,
  SimpleFactory,
} from '@metamask/delegation-abis';
import { ERC1967Proxy as ERC1967ProxyBytecode } from '@metamask/delegation-abis/bytecode';
import {
  createERC20TokenPeriodTransferTerms,
  decodeERC20TokenPeriodTransferTerms,
  encodeDelegations,
  hashDelegation,
  ROOT_AUTHORITY,
} from '@metamask/delegation-core';
import {
  concat,
  encodeDeployData,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  type Hex,
  pad,
} from 'viem';
import type { ChainClient } from '../client.ts';
import { usdcAbi } from '../token.ts';
import type { FrameworkAddresses } from './bounded-config.ts';

export type Address = `0x${string}`;

export interface SignedDelegation {
  delegate: Address;
  delegator: Address;
  authority: Hex;
  caveats: Array<{ enforcer: Address; terms: Hex; args: Hex }>;
  salt: bigint;
  signature: Hex;
}

/** ERC-7579 mode: one call, reverting on failure. */
const SINGLE_DEFAULT_MODE = `0x${'00'.repeat(32)}` as const;
/** ERC-1271's "valid" answer. */
const ERC1271_MAGIC = '0x1626ba7e';

export const delegationTypes = {
  Caveat: [
    { name: 'enforcer', type: 'address' },
    { name: 'terms', type: 'bytes' },
  ],
  Delegation: [
    { name: 'delegate', type: 'address' },
    { name: 'delegator', type: 'address' },
    { name: 'authority', type: 'bytes32' },
    { name: 'caveats', type: 'Caveat[]' },
    { name: 'salt', type: 'uint256' },
  ],
} as const;

/**
 * The owners' account: where the SimpleFactory deploys a MultiSigDeleGator proxy for these owners and threshold.
 * The salt is the service's key address, so two services with the same owners get two accounts.
 */
export function ownersAccount(
  framework: FrameworkAddresses,
  owners: readonly Address[],
  threshold: number,
  serviceAddress: Address,
): { address: Address; deployCall: { to: Address; data: Hex } } {
  const initcode = encodeFunctionData({
    abi: MultiSigDeleGator,
    functionName: 'initialize',
    args: [owners.map((o) => o as Address), BigInt(threshold)],
  });
  return proxyAt(framework.simpleFactory, framework.multiSigImpl, initcode, serviceAddress);
}

/** A P-256 key of a HybridDeleGator: the key id is the passkey's credential id (base64url), as the signature names it. */
export interface P256Key {
  keyId: string;
  x: bigint;
  y: bigint;
}

/**
 * A HybridDeleGator proxy for one owner's address (or none: the zero address) and passkeys' P-256 keys, deployed by
 * the SimpleFactory at a CREATE2 address (salt: the service's key address, as for the MultiSigDeleGator).
 */
export function hybridAccount(
  factory: Address,
  implementation: Address,
  owner: Address | undefined,
  keys: readonly P256Key[],
  serviceAddress: Address,
): { address: Address; deployCall: { to: Address; data: Hex } } {
  const initcode = encodeFunctionData({
    abi: HybridDeleGator,
    functionName: 'initialize',
    args: [
      owner ?? `0x${'00'.repeat(20)}`,
      keys.map((k) => k.keyId),
      keys.map((k) => k.x),
      keys.map((k) => k.y),
    ],
  });
  return proxyAt(factory, implementation, initcode, serviceAddress);
}

function proxyAt(factory: Address, implementation: Address, initcode: Hex, serviceAddress: Address) {
  const creationCode = encodeDeployData({
    abi: ERC1967Proxy,
    bytecode: ERC1967ProxyBytecode as Hex,
    args: [implementation, initcode],
  });
  const salt = pad(serviceAddress, { dir: 'left', size: 32 });
  const address = getContractAddress({ bytecode: creationCode, from: factory, opcode: 'CREATE2', salt });
  const data = encodeFunctionData({ abi: SimpleFactory, functionName: 'deploy', args: [creationCode, salt] });
  return { address: address.toLowerCase() as Address, deployCall: { to: factory, data } };
}

export interface AllowanceTerms {
  usdc: Address;
  allowanceMicros: bigint;
  periodSeconds: number;
  startSeconds: number;
}

/** The delegation the owners sign: the service's key may move at most the allowance of USDC per period. */
export function unsignedDelegation(
  framework: FrameworkAddresses,
  account: Address,
  serviceAddress: Address,
  terms: AllowanceTerms,
  salt: bigint,
): Omit<SignedDelegation, 'signature'> {
  const encoded = createERC20TokenPeriodTransferTerms({
    tokenAddress: terms.usdc,
    periodAmount: terms.allowanceMicros,
    periodDuration: terms.periodSeconds,
    startDate: terms.startSeconds,
  });
  return {
    delegate: serviceAddress,
    delegator: account,
    authority: ROOT_AUTHORITY as Hex,
    caveats: [{ enforcer: framework.periodTransferEnforcer, terms: encoded, args: '0x' }],
    salt,
  };
}

/** The EIP-712 message each owner signs (eth_signTypedData_v4), verified by the account's ERC-1271. */
export function delegationTypedData(
  delegation: Omit<SignedDelegation, 'signature'>,
  chainId: number,
  delegationManager: Address,
) {
  return {
    domain: { name: 'DelegationManager', version: '1', chainId, verifyingContract: delegationManager },
    types: delegationTypes,
    primaryType: 'Delegation' as const,
    message: {
      delegate: delegation.delegate,
      delegator: delegation.delegator,
      authority: delegation.authority,
      caveats: delegation.caveats.map(({ enforcer, terms }) => ({ enforcer, terms })),
      salt: delegation.salt,
    },
  };
}

/** The MultiSigDeleGator's signature: each owner's 65 bytes, in ascending order of their addresses. */
export function multiSigSignature(parts: ReadonlyArray<{ signer: Address; signature: Hex }>): Hex {
  const sorted = [...parts].sort((a, b) => (a.signer.toLowerCase() < b.signer.toLowerCase() ? -1 : 1));
  return concat(sorted.map((p) => p.signature));
}

export function delegationHash(delegation: SignedDelegation): Hex {
  return hashDelegation(delegation) as Hex;
}

/** Whether the account (deployed) accepts the owners' signature over this delegation's EIP-712 digest. */
export async function ownersSigned(
  client: ChainClient,
  delegation: SignedDelegation,
  digest: Hex,
): Promise<boolean> {
  const answer = await client
    .readContract({
      address: delegation.delegator,
      abi: MultiSigDeleGator,
      functionName: 'isValidSignature',
      args: [digest, delegation.signature],
    })
    .catch(() => null);
  return answer === ERC1271_MAGIC;
}

/** The service key's call that moves `amountMicros` USDC from the account to `to`, within the allowance. */
export function redeemCall(
  framework: FrameworkAddresses,
  delegation: SignedDelegation,
  usdc: Address,
  to: Address,
  amountMicros: bigint,
): { to: Address; data: Hex } {
  const transfer = encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [to, amountMicros] });
  const execution = encodePacked(['address', 'uint256', 'bytes'], [usdc, 0n, transfer]);
  const data = encodeFunctionData({
    abi: DelegationManager,
    functionName: 'redeemDelegations',
    args: [[encodeDelegations([delegation]) as Hex], [SINGLE_DEFAULT_MODE], [execution]],
  });
  return { to: framework.delegationManager, data };
}

/** The account's own call that revokes a delegation (only the delegator may: the owners, at their threshold). */
export function disableCall(framework: FrameworkAddresses, delegation: SignedDelegation) {
  return {
    to: framework.delegationManager,
    data: encodeFunctionData({
      abi: DelegationManager,
      functionName: 'disableDelegation',
      args: [delegation],
    }),
  };
}

export interface AllowanceState {
  /** What the service's key may still take in the current period (0 once revoked). */
  remainingMicros: bigint;
  /** Unix seconds the next period begins. */
  resetsAtSeconds: number;
  revoked: boolean;
}

/** The enforcer's own count of this period (the chain, not the database, is the authority). */
export async function readAllowance(
  client: ChainClient,
  framework: FrameworkAddresses,
  delegation: SignedDelegation,
  chainNowSeconds: bigint,
): Promise<AllowanceState> {
  const caveat = delegation.caveats[0]!;
  const hash = delegationHash(delegation);
  const [[available], revoked] = await Promise.all([
    client.readContract({
      address: caveat.enforcer,
      abi: ERC20PeriodTransferEnforcer,
      functionName: 'getAvailableAmount',
      args: [hash, framework.delegationManager, caveat.terms],
    }),
    client.readContract({
      address: framework.delegationManager,
      abi: DelegationManager,
      functionName: 'disabledDelegations',
      args: [hash],
    }),
  ]);
  const terms = decodeERC20TokenPeriodTransferTerms(caveat.terms);
  const start = BigInt(terms.startDate);
  const period = BigInt(terms.periodDuration);
  const elapsed = chainNowSeconds >= start ? (chainNowSeconds - start) / period + 1n : 0n;
  return {
    remainingMicros: revoked ? 0n : available,
    resetsAtSeconds: Number(start + elapsed * period),
    revoked,
  };
}

/** JSON of a signed delegation as stored and handed over (bigint salt as a decimal string). */
export function delegationToJson(delegation: SignedDelegation): string {
  return JSON.stringify({ ...delegation, salt: String(delegation.salt) });
}

export function delegationFromJson(json: string): SignedDelegation {
  const parsed = JSON.parse(json) as Omit<SignedDelegation, 'salt'> & { salt: string };
  return { ...parsed, salt: BigInt(parsed.salt) };
}

/** A salt for a new delegation: distinct per grant, so a re-grant after a revocation has another hash. */
export function delegationSalt(): bigint {
  return BigInt(`0x${randomBytes(16).toString('hex')}`);
}
