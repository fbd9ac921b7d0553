// EVM addresses: 0x + 40 hex digits, rendered with the EIP-55 mixed-case checksum.
// Accepted input: all-lowercase or all-uppercase hex (unchecksummed) or a mixed-case one whose checksum holds.
// keccak256 from @noble/hashes, the implementation viem itself uses: importing viem's root costs ~36 MB of
// resident memory (measured), which a sandbox deployment, that never touches a chain, should not pay.
import { keccak_256 } from '@noble/hashes/sha3.js';

const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;
const encoder = new TextEncoder();

export type AddressParse = { ok: true; lower: string } | { ok: false; reason: string };

/** Validates an address from the wire; returns the canonical lower-case form used for storage and lookups. */
export function parseAddress(value: unknown): AddressParse {
  if (value === undefined) return { ok: false, reason: 'is required' };
  if (typeof value !== 'string') return { ok: false, reason: 'must be a string' };
  if (!ADDRESS_PATTERN.test(value)) return { ok: false, reason: 'must be 0x followed by 40 hex digits' };
  const hex = value.slice(2);
  const unchecksummed = hex === hex.toLowerCase() || hex === hex.toUpperCase();
  if (!unchecksummed && toChecksumAddress(value) !== value) {
    return { ok: false, reason: 'has an invalid EIP-55 checksum' };
  }
  return { ok: true, lower: `0x${hex.toLowerCase()}` };
}

/** Checksummed addresses remembered: every response shows one, and a keccak per response is measurable. */
const CHECKSUM_CACHE_MAX = 10_000;
const checksummed = new Map<string, string>();

/** EIP-55 mixed-case form of an address. */
export function toChecksumAddress(address: string): string {
  const known = checksummed.get(address);
  if (known !== undefined) return known;
  const result = computeChecksumAddress(address);
  if (checksummed.size >= CHECKSUM_CACHE_MAX) checksummed.clear();
  checksummed.set(address, result);
  return result;
}

/** EIP-55: uppercase each hex letter whose nibble in keccak256(lower-case hex) is >= 8 (chain/keys.ts cross-checks it with viem). */
function computeChecksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(encoder.encode(hex));
  let out = '0x';
  for (let i = 0; i < hex.length; i += 1) {
    const byte = hash[i >> 1]!;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out;
}

/** BIP-32 non-hardened child indexes stop here: the last index a wallet's address can take on the `evm` rail. */
export const DERIVATION_INDEX_MAX = 2 ** 31 - 1;

/**
 * A wallet's address, derived from the server's address secret and the wallet id: the last 20 bytes of
 * keccak256(secret || walletId), as Ethereum derives addresses from keys. Unique in practice (160 bits) and
 * enforced by a unique index. Sandbox rail only: no private key exists for it. On the `evm` rail every address
 * comes from the treasury mnemonic instead (chain/keys.ts).
 */
export function deriveAddress(secret: Uint8Array, walletId: string): string {
  const idBytes = encoder.encode(walletId);
  const joined = new Uint8Array(secret.length + idBytes.length);
  joined.set(secret, 0);
  joined.set(idBytes, secret.length);
  return `0x${Buffer.from(keccak_256(joined).subarray(12)).toString('hex')}`;
}
