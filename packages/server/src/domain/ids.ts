// Opaque ids: a readable type prefix, a creation-ordered part and CSPRNG randomness.
import { randomBytes, randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 62 * 4 = 248: bytes at or above it are rejected so every character is equally likely (no modulo bias).
const UNBIASED_BYTE_LIMIT = 248;

export type IdPrefix =
  | 'usr'
  | 'ses'
  | 'wal'
  | 'acc'
  | 'ltx'
  | 'ent'
  | 'key'
  | 'pol'
  | 'tx'
  | 'dep'
  | 'evt'
  | 'obx'
  | 'tdl'
  | 'osr'
  | 'cdp'
  | 'pch'
  | 'whk'
  | 'dlv'
  | 'rcv'
  | 'pky'
  | 'sev'
  | 'wad'
  | 'wdr'
  | 'org'
  | 'inv'
  | 'aud'
  | 'alr'
  | 'eml'
  | 'oac';

/** `length` uniformly random base62 characters from fresh CSPRNG bytes (secrets: API keys, webhook secrets). */
export function randomBase62(length: number): string {
  let bytes = randomBytes(length * 2);
  let offset = 0;
  return base62(length, () => {
    if (offset === bytes.length) {
      bytes = randomBytes(length * 2);
      offset = 0;
    }
    return bytes[offset++]!;
  });
}

// Ids need uniqueness, not secrecy: their random part is drawn from a CSPRNG pool refilled 4 KiB at a time.
// Measured, one randomBytes call per id was 7 % of an internal payment's CPU (a payment makes several ids).
// Secrets (randomBase62 above) never come from the pool.
const ID_POOL_BYTES = 4096;
const idPool = Buffer.alloc(ID_POOL_BYTES);
let idPoolOffset = ID_POOL_BYTES;

function nextPoolByte(): number {
  if (idPoolOffset === ID_POOL_BYTES) {
    randomFillSync(idPool);
    idPoolOffset = 0;
  }
  return idPool[idPoolOffset++]!;
}

/** The one rejection-sampling rule: bytes at or above UNBIASED_BYTE_LIMIT are dropped, so no modulo bias. */
function base62(length: number, nextByte: () => number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < UNBIASED_BYTE_LIMIT) out += BASE62[byte % 62];
  }
  return out;
}

let lastMs = 0;
let sequenceInMs = 0;
const SEQUENCE_MAX = 36 ** 4;

/**
 * Ids sort by creation within a process: 9 base36 digits of a monotonic millisecond clock, 4 of a sequence
 * within that millisecond, then 12 random base62 characters (~71 bits) for uniqueness across instances.
 * Lists ordered by (created_at_ms, id) are newest-first even for records made in the same millisecond.
 */
export function newId(prefix: IdPrefix): string {
  const nowMs = Math.max(Date.now(), lastMs);
  if (nowMs === lastMs) sequenceInMs += 1;
  else sequenceInMs = 0;
  lastMs = nowMs;
  if (sequenceInMs >= SEQUENCE_MAX) {
    lastMs += 1; // borrow the next millisecond rather than wrap and lose the order
    sequenceInMs = 0;
  }
  const timePart = lastMs.toString(36).padStart(9, '0');
  const sequencePart = sequenceInMs.toString(36).padStart(4, '0');
  return `${prefix}_${timePart}${sequencePart}${base62(12, nextPoolByte)}`;
}

/** Request ids `req_` + 8 random base62 characters fixed for this source + an 8-digit base36 counter. */
export function requestIdSource(): () => string {
  const prefix = `req_${randomBase62(8)}`;
  let counter = 0;
  return () => {
    counter = (counter + 1) % 36 ** 8;
    return `${prefix}${counter.toString(36).padStart(8, '0')}`;
  };
}
