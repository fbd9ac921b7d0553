// API keys: `svc_live_` + 43 base62 characters from the CSPRNG (~256 bits). The server keeps only the SHA-256
// of the key (a fast hash is right for a high-entropy secret: there is nothing to brute-force) and a short
// display prefix. Scopes: read (check_balance, get_tx_history) and write (send_payment, request_approval).
import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids.ts';

export const API_KEY_PREFIX = 'svc_live_';
export const API_KEY_RANDOM_LENGTH = 43;
/** Characters after the prefix shown in listings: enough to tell keys apart, far too few to guess the rest. */
export const API_KEY_DISPLAY_LENGTH = 6;
const WELL_FORMED_KEY = /^svc_live_[0-9A-Za-z]{32,128}$/;

export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

export interface GeneratedKey {
  key: string;
  hash: string;
  prefix: string;
}

export function generateApiKey(): GeneratedKey {
  const key = `${API_KEY_PREFIX}${randomBase62(API_KEY_RANDOM_LENGTH)}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, API_KEY_PREFIX.length + API_KEY_DISPLAY_LENGTH) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Shape check before any lookup, so garbage never reaches the database. */
export function isWellFormedApiKey(token: string): boolean {
  return WELL_FORMED_KEY.test(token);
}

export type ScopesParse = { ok: true; scopes: Scope[] } | { ok: false; reason: string };

/**
 * Accepts ["read"], ["write"], ["read","write"] (any order) and the strings "read", "write", "read,write";
 * undefined means the default, read and write. Returns the canonical sorted list.
 */
export function parseScopes(input: unknown): ScopesParse {
  if (input === undefined) return { ok: true, scopes: ['read', 'write'] };
  const list = typeof input === 'string' ? input.split(',').map((s) => s.trim()) : input;
  if (!Array.isArray(list) || list.length === 0 || list.length > SCOPES.length) {
    return { ok: false, reason: 'must be ["read"], ["write"] or ["read","write"]' };
  }
  const unique = new Set<Scope>();
  for (const item of list) {
    if (item !== 'read' && item !== 'write')
      return { ok: false, reason: `has an unknown scope ${JSON.stringify(item)}` };
    if (unique.has(item)) return { ok: false, reason: `lists ${item} twice` };
    unique.add(item);
  }
  return { ok: true, scopes: SCOPES.filter((s) => unique.has(s)) };
}

export function scopesToText(scopes: readonly Scope[]): string {
  return scopes.join(',');
}

export function scopesFromText(text: string): Scope[] {
  return text.split(',').filter((s): s is Scope => s === 'read' || s === 'write');
}

export type KeyStatus = 'active' | 'rotating' | 'revoked' | 'expired';

export interface KeyTimes {
  revokedAtMs: number | null;
  expiresAtMs: number | null;
  rotatedToKeyId: string | null;
}

/** The key's state at `nowMs`: a rotated key is "rotating" until its grace ends, then "revoked". */
export function keyStatus(key: KeyTimes, nowMs: number): KeyStatus {
  if (key.revokedAtMs !== null && nowMs >= key.revokedAtMs) return 'revoked';
  if (key.expiresAtMs !== null && nowMs >= key.expiresAtMs) return 'expired';
  if (key.revokedAtMs !== null || key.rotatedToKeyId !== null) return 'rotating';
  return 'active';
}

export function isKeyUsable(key: KeyTimes, nowMs: number): boolean {
  const status = keyStatus(key, nowMs);
  return status === 'active' || status === 'rotating';
}
