// A passkey as a signer of a HybridDeleGator account (contract section 14): the account keeps P-256 public keys,
// each under a key id (here the passkey's credential id, base64url), and accepts a WebAuthn assertion whose
// challenge is the hash it validates. The signature the account takes is the ABI encoding the framework's
// P256SCLVerifierLib decodes — the same as @metamask/smart-accounts-kit's encodeDeleGatorSignature (the kit is not
// loaded by the service: it reports usage to MetaMask unless told not to), checked against the kit and the
// bytecode on anvil by test/treasury-passkey.test.ts:
//   (bytes32 keccak256(keyId), uint256 r, uint256 s (low-s), bytes authenticatorData, bool userVerified,
//    string clientDataJSON before the challenge, string after it, uint256 where "type" starts in clientDataJSON)

import { HybridDeleGator } from '@metamask/delegation-abis';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import {
  bytesToHex,
  encodeAbiParameters,
  encodePacked,
  type Hex,
  hexToBytes,
  keccak256,
  parseAbiParameters,
} from 'viem';
import type { ChainClient } from '../client.ts';
import type { Address, P256Key } from './delegation.ts';

export class PasskeyRefused extends Error {}

/** The order of P-256; a signature's s above half of it is the malleable twin the verifier refuses. */
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const SIGNATURE_PARAMS = parseAbiParameters(
  'bytes32, uint256, uint256, bytes, bool, string, string, uint256',
);
/** authenticatorData's flags byte follows the 32-byte rpIdHash; bit 2 is "user verified". */
const FLAGS_OFFSET = 32;
const FLAG_UV = 0x04;
const ERC1271_MAGIC = '0x1626ba7e';

/** Pure: the challenge a passkey signs for this digest (the request's hash), base64url without padding. */
export function challengeOf(digest: Hex): string {
  return Buffer.from(hexToBytes(digest)).toString('base64url');
}

/** Pure: the P-256 public key of a stored passkey (its COSE_Key, base64url), or PasskeyRefused for another kind. */
export function p256KeyOf(credentialId: string, coseKeyBase64url: string): P256Key {
  // The decoded COSE_Key is a Map of numbers; its typings name only the common keys.
  const key = decodeCredentialPublicKey(
    new Uint8Array(Buffer.from(coseKeyBase64url, 'base64url')),
  ) as unknown as Map<number, unknown>;
  const x = key.get(cose.COSEKEYS.x);
  const y = key.get(cose.COSEKEYS.y);
  if (
    key.get(cose.COSEKEYS.kty) !== cose.COSEKTY.EC2 ||
    key.get(cose.COSEKEYS.crv) !== cose.COSECRV.P256 ||
    !(x instanceof Uint8Array) ||
    !(y instanceof Uint8Array)
  )
    throw new PasskeyRefused('this passkey is not a P-256 key (ES256): it cannot sign for the account');
  return { keyId: credentialId, x: BigInt(bytesToHex(x)), y: BigInt(bytesToHex(y)) };
}

/** Pure: r and s of an ASN.1 DER ECDSA signature (what WebAuthn authenticators return for ES256). */
export function derToRs(der: Uint8Array): { r: bigint; s: bigint } {
  const refuse = () => new PasskeyRefused('the assertion’s signature is not a DER-encoded ECDSA signature');
  if (der[0] !== 0x30 || der[1] !== der.length - 2) throw refuse();
  let at = 2;
  const integer = (): bigint => {
    if (der[at] !== 0x02) throw refuse();
    const length = der[at + 1]!;
    if (length === 0 || length > 33 || at + 2 + length > der.length) throw refuse();
    const value = BigInt(bytesToHex(der.subarray(at + 2, at + 2 + length)));
    at += 2 + length;
    return value;
  };
  const r = integer();
  const s = integer();
  if (at !== der.length || r === 0n || s === 0n || r >= P256_N || s >= P256_N) throw refuse();
  return { r, s };
}

export interface Assertion {
  /** The credential id (base64url): the account's key id. */
  keyId: string;
  authenticatorData: Uint8Array;
  clientDataJSON: string;
  /** DER, as the authenticator signed. */
  signature: Uint8Array;
}

/** Pure: the signature a HybridDeleGator accepts from this assertion. */
export function encodeWebAuthnSignature(assertion: Assertion): Hex {
  const { r, s } = derToRs(assertion.signature);
  const lowS = s > P256_N / 2n ? P256_N - s : s;
  const { challenge, type } = JSON.parse(assertion.clientDataJSON) as { challenge?: unknown; type?: unknown };
  if (typeof challenge !== 'string' || type !== 'webauthn.get')
    throw new PasskeyRefused('clientDataJSON is not that of an assertion (webauthn.get with a challenge)');
  const parts = assertion.clientDataJSON.split(challenge);
  if (parts.length !== 2) throw new PasskeyRefused('clientDataJSON names its challenge more than once');
  const flags = assertion.authenticatorData[FLAGS_OFFSET];
  if (flags === undefined) throw new PasskeyRefused('authenticatorData is too short');
  return encodeAbiParameters(SIGNATURE_PARAMS, [
    keccak256(encodePacked(['string'], [assertion.keyId])),
    r,
    lowS,
    bytesToHex(assertion.authenticatorData),
    (flags & FLAG_UV) !== 0,
    parts[0]!,
    parts[1]!,
    BigInt(assertion.clientDataJSON.indexOf('"type":')),
  ]);
}

/** Whether the account holds this P-256 key under this key id (read from the chain: the account is the authority). */
export async function accountHoldsKey(client: ChainClient, account: Address, key: P256Key): Promise<boolean> {
  const [x, y] = await client.readContract({
    address: account,
    abi: HybridDeleGator,
    functionName: 'getKey',
    args: [key.keyId],
  });
  return x === key.x && y === key.y;
}

/** Whether the account itself (ERC-1271) accepts `signature` over `digest`: asked before anything is submitted. */
export async function accountAccepts(
  client: ChainClient,
  account: Address,
  digest: Hex,
  signature: Hex,
): Promise<boolean> {
  const answer = await client
    .readContract({
      address: account,
      abi: HybridDeleGator,
      functionName: 'isValidSignature',
      args: [digest, signature],
    })
    .catch(() => null);
  return answer === ERC1271_MAGIC;
}
