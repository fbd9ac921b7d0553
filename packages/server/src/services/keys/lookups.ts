// The per-request authentication of tool calls: the key behind a bearer token (an API key or an OAuth access
// token), if it is usable now. Lookups may be served from an in-process cache; `clear` empties it (every change
// to a key, here or on another instance). Each use is remembered for the batched lastUsedAt (keys.ts).

import type { Kysely } from 'kysely';
import {
  hashApiKey,
  isKeyUsable,
  isWellFormedApiKey,
  type Scope,
  scopesFromText,
} from '../../domain/keys/api-keys.ts';
import {
  ACCESS_TOKEN_PREFIX,
  hashOAuthSecret,
  isWellFormedOAuthSecret,
} from '../../domain/oauth/protocol.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { type KeyRow, timesOf } from './rows.ts';

const KEY_CACHE_ENTRIES_MAX = 10_000;

export interface AgentKey {
  id: string;
  walletId: string;
  userId: string;
  scopes: Scope[];
}

export function createKeyLookups(
  ctx: ServiceContext,
  options: { cacheLookups: boolean },
  /** Each key's last use not yet written: key id → when. */
  lastUsed: Map<string, number>,
) {
  const { store, clock } = ctx;
  const cache = new Map<string, KeyRow>();
  // OAuth access tokens: the token's hash → its connection's row and the token's own expiry.
  const tokenCache = new Map<string, { row: KeyRow; expiresAtMs: number }>();
  // Bumped by every clear: a lookup that started before a clear must not cache the row it read (it may be the
  // row from before a revocation).
  let cacheGeneration = 0;
  const clear = () => {
    cache.clear();
    tokenCache.clear();
    cacheGeneration += 1;
  };

  async function authenticate(token: string): Promise<AgentKey | null> {
    if (token.startsWith(ACCESS_TOKEN_PREFIX)) return authenticateAccessToken(token);
    if (!isWellFormedApiKey(token)) return null;
    const hash = hashApiKey(token);
    let row = options.cacheLookups ? cache.get(hash) : undefined;
    if (row === undefined) {
      const generation = cacheGeneration;
      row = await store.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
      if (row === undefined) return null; // misses are not cached: garbage must not fill memory
      if (options.cacheLookups && generation === cacheGeneration) remember(cache, hash, row);
    }
    // A connection's row holds the hash of a secret nobody was given; refuse it here all the same.
    return row.type === 'api_key' ? usableKey(row) : null;
  }

  /** An OAuth access token acts as its connection's key while both the token and the connection are usable. */
  async function authenticateAccessToken(token: string): Promise<AgentKey | null> {
    if (!isWellFormedOAuthSecret(token, 'access')) return null;
    const hash = hashOAuthSecret(token);
    let entry = options.cacheLookups ? tokenCache.get(hash) : undefined;
    if (entry === undefined) {
      const generation = cacheGeneration;
      const found = await accessTokenRow(store.db, hash);
      if (found === undefined) return null;
      const { token_expires_at_ms, ...row } = found;
      entry = { row, expiresAtMs: Number(token_expires_at_ms) };
      if (options.cacheLookups && generation === cacheGeneration) remember(tokenCache, hash, entry);
    }
    if (entry.row.type !== 'oauth' || clock.nowMs() >= entry.expiresAtMs) return null;
    return usableKey(entry.row);
  }

  function usableKey(row: KeyRow): AgentKey | null {
    const nowMs = clock.nowMs();
    if (!isKeyUsable(timesOf(row), nowMs)) return null;
    lastUsed.set(row.id, nowMs);
    return { id: row.id, walletId: row.wallet_id, userId: row.user_id, scopes: scopesFromText(row.scopes) };
  }

  return { authenticate, clear };
}

/** An access token's connection row, with the token's own expiry. */
function accessTokenRow(db: Kysely<Database>, hash: string) {
  return db
    .selectFrom('oauth_tokens as t')
    .innerJoin('api_keys as k', 'k.id', 't.key_id')
    .selectAll('k')
    .select('t.expires_at_ms as token_expires_at_ms')
    .where('t.token_hash', '=', hash)
    .where('t.kind', '=', 'access')
    .executeTakeFirst();
}

/** Caches hold at most KEY_CACHE_ENTRIES_MAX entries: past it the oldest goes. */
function remember<T>(cache: Map<string, T>, hash: string, value: T): void {
  if (cache.size >= KEY_CACHE_ENTRIES_MAX) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(hash, value);
}
