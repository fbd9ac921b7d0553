// EVM address checks done in the browser before sending: 0x + 40 hex digits, and when the hex is mixed-case,
// a valid EIP-55 checksum (the server refuses a wrong checksum with a 400; catching it here saves a request).

const MASK64 = (1n << 64n) - 1n;
const ROUND_CONSTANTS = [
  0x0000000000000001n,
  0x0000000000008082n,
  0x800000000000808an,
  0x8000000080008000n,
  0x000000000000808bn,
  0x0000000080000001n,
  0x8000000080008081n,
  0x8000000000008009n,
  0x000000000000008an,
  0x0000000000000088n,
  0x0000000080008009n,
  0x000000008000000an,
  0x000000008000808bn,
  0x800000000000008bn,
  0x8000000000008089n,
  0x8000000000008003n,
  0x8000000000008002n,
  0x8000000000000080n,
  0x000000000000800an,
  0x800000008000000an,
  0x8000000080008081n,
  0x8000000000008080n,
  0x0000000080000001n,
  0x8000000080008008n,
];
// Rotation offsets r[x + 5y].
const ROTATIONS = [
  0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
];
const RATE_BYTES = 136;

function rotl(value: bigint, shift: number): bigint {
  if (shift === 0) return value;
  const s = BigInt(shift);
  return ((value << s) | (value >> (64n - s))) & MASK64;
}

function keccakF(state: bigint[]): void {
  const c = new Array<bigint>(5).fill(0n);
  const b = new Array<bigint>(25).fill(0n);
  for (const rc of ROUND_CONSTANTS) {
    for (let x = 0; x < 5; x += 1) {
      c[x] = state[x]! ^ state[x + 5]! ^ state[x + 10]! ^ state[x + 15]! ^ state[x + 20]!;
    }
    for (let x = 0; x < 5; x += 1) {
      const d = c[(x + 4) % 5]! ^ rotl(c[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) state[x + y] = state[x + y]! ^ d;
    }
    for (let x = 0; x < 5; x += 1) {
      for (let y = 0; y < 5; y += 1) {
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(state[x + 5 * y]!, ROTATIONS[x + 5 * y]!);
      }
    }
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x += 1) {
        state[x + y] = b[x + y]! ^ (~b[((x + 1) % 5) + y]! & MASK64 & b[((x + 2) % 5) + y]!);
      }
    }
    state[0] = state[0]! ^ rc;
  }
}

/** Keccak-256 (the pre-standard padding Ethereum uses), hex-encoded. */
export function keccak256Hex(input: Uint8Array): string {
  const padded = new Uint8Array(Math.floor(input.length / RATE_BYTES + 1) * RATE_BYTES);
  padded.set(input);
  padded[input.length] = 0x01;
  padded[padded.length - 1] = padded[padded.length - 1]! | 0x80;
  const state = new Array<bigint>(25).fill(0n);
  for (let offset = 0; offset < padded.length; offset += RATE_BYTES) {
    for (let lane = 0; lane < RATE_BYTES / 8; lane += 1) {
      let value = 0n;
      for (let i = 7; i >= 0; i -= 1) value = (value << 8n) | BigInt(padded[offset + lane * 8 + i]!);
      state[lane] = state[lane]! ^ value;
    }
    keccakF(state);
  }
  let out = '';
  for (let lane = 0; lane < 4; lane += 1) {
    let value = state[lane]!;
    for (let i = 0; i < 8; i += 1) {
      out += (value & 0xffn).toString(16).padStart(2, '0');
      value >>= 8n;
    }
  }
  return out;
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
