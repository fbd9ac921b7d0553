// EVM address checks done in the browser before sending: 0x + 40 hex digits, and when the hex is mixed-case,
// a valid EIP-55 checksum (the server refuses a wrong checksum with a 400; catching it here saves a request).
// Keccak-256 is @noble/hashes' (audited), not the dashboard's own.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** Keccak-256 (the pre-standard padding Ethereum uses), hex-encoded. */
export function keccak256Hex(input: Uint8Array): string {
  return bytesToHex(keccak_256(input));
}
/** EIP-55: each hex letter is upper case where the matching nibble of keccak256(lower-case hex) is >= 8. */
export function toChecksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = keccak256Hex(new TextEncoder().encode(hex));
  let out = '0x';
  for (let i = 0; i < hex.length; i += 1) {
    out += Number.parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out;
}

export type AddressCheck = { ok: true; value: string } | { ok: false; reason: string };

export function checkAddress(raw: string): AddressCheck {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'Enter an address.' };
  if (!text.startsWith('0x')) return { ok: false, reason: 'An address starts with 0x.' };
  const hex = text.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(hex)) {
    return { ok: false, reason: 'After 0x an address has only the hex digits 0-9 and a-f.' };
  }
  if (hex.length !== 40) {
    return { ok: false, reason: `An address has 40 hex digits after 0x; this one has ${hex.length}.` };
  }
  const unchecksummed = hex === hex.toLowerCase() || hex === hex.toUpperCase();
  if (!unchecksummed && toChecksumAddress(text) !== text) {
    return {
      ok: false,
      reason: 'The capital letters do not match the address checksum (EIP-55): check for a typo.',
    };
  }
  return { ok: true, value: text };
}

/** "0x1234…cdef" for tight spaces; the full address stays available to copy. */
export function shortAddress(address: string): string {
  return address.length <= 14 ? address : `${address.slice(0, 8)}…${address.slice(-6)}`;
}
