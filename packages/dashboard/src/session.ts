// The session: the JWT and the user, kept in sessionStorage. That storage is per tab and cleared when the tab
// closes, so a reload keeps the person logged in while the token never outlives the tab (localStorage would
// keep it on disk for its full 7 days and share it with every tab). The token's own `exp` ends the session.
import type { User } from '@agent-wallet/sdk';

const STORAGE_KEY = 'agent-wallet.session';

export interface Session {
  token: string;
  user: User;
  /** Epoch ms of the JWT's exp claim. */
  expiresAt: number;
}

/** The `exp` claim of a JWT, in epoch ms; null when the token is not a readable JWT. */
export function jwtExpiry(token: string): number | null {
  const payload = token.split('.')[1];
  if (payload === undefined) return null;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const padded = base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '=');
    const claims: unknown = JSON.parse(atob(padded));
    const exp = (claims as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}

export function sessionFrom(token: string, user: User): Session | null {
  const expiresAt = jwtExpiry(token);
  if (expiresAt === null) return null;
  return { token, user, expiresAt };
}

export type StoredSession = { session: Session; expired: false } | { session: null; expired: boolean };

export function readSession(storage: Storage = sessionStorage, now = Date.now()): StoredSession {
  let raw: string | null = null;
  try {
    raw = storage.getItem(STORAGE_KEY);
  } catch {
    return { session: null, expired: false };
  }
  if (raw === null) return { session: null, expired: false };
  try {
    const parsed = JSON.parse(raw) as { token?: unknown; user?: unknown };
    const user = parsed.user as User | undefined;
    if (typeof parsed.token !== 'string' || typeof user?.email !== 'string') throw new Error('malformed');
    const session = sessionFrom(parsed.token, user);
    if (session === null) throw new Error('malformed');
    if (session.expiresAt <= now) {
      clearSession(storage);
      return { session: null, expired: true };
    }
    return { session, expired: false };
  } catch {
    clearSession(storage);
    return { session: null, expired: false };
  }
}

export function writeSession(session: Session, storage: Storage = sessionStorage) {
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify({ token: session.token, user: session.user }));
  } catch {
    // Storage refused (private mode quota): the session still works until the tab reloads.
  }
}

export function clearSession(storage: Storage = sessionStorage) {
  try {
    storage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored, nothing to clear.
  }
}
