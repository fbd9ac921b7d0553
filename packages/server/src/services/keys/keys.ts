// API keys of agent wallets: create (the key is returned once, only its hash is stored), list, revoke, rotate,
// and the per-request authentication of tool calls. Lookups may be served from an in-process cache; every
// change to a key clears it here and bumps the cross-instance signal before the change is acknowledged.
import type { Kysely, Selectable } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import {
  generateApiKey,
  hashApiKey,
  isKeyUsable,
  isWellFormedApiKey,
  type KeyStatus,
  keyStatus,
  type Scope,
  scopesFromText,
  scopesToText,
} from '../../domain/keys/api-keys.ts';
import {
  ACCESS_TOKEN_PREFIX,
  generateOAuthSecret,
  hashOAuthSecret,
  isWellFormedOAuthSecret,
} from '../../domain/oauth/protocol.ts';
import { invalid, invalidState, notFound } from '../../errors.ts';
import { lockOwnerRow } from '../../store/locks.ts';
import type { ApiKeysTable, Database } from '../../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from '../context.ts';
import { ownedWallet } from '../wallet-rows.ts';
import { AGENT_WALLETS_PER_USER_MAX } from '../wallets.ts';
import { emitEvent, emitEvents } from '../webhook-events.ts';

type KeyRow = Selectable<ApiKeysTable>;

export const KEYS_PER_WALLET_MAX = 100;
export const GRACE_SECONDS_DEFAULT = 3_600;
export const GRACE_SECONDS_MAX = 7 * 24 * 3_600;
const KEY_CACHE_ENTRIES_MAX = 10_000;
/** The most usable keys an organization can hold (every wallet full): what a member can have made. */
const MADE_KEYS_MAX = AGENT_WALLETS_PER_USER_MAX * KEYS_PER_WALLET_MAX;
/** Keys ended by one statement: well inside both stores' limits on a statement's parameters. */
const END_CHUNK_KEYS = 500;

export interface AgentKey {
  id: string;
  walletId: string;
  userId: string;
  scopes: Scope[];
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface KeyView {
  id: string;
  /** 'oauth': a connection an owner allowed an OAuth client (contract section 12). */
  type: 'api_key' | 'oauth';
  /** The OAuth client's name; null for an API key. */
  clientName: string | null;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  rotatedToKeyId: string | null;
}

/** A key or OAuth connection a member made, as a removal names it (never its secret). */
export interface MadeKey {
  id: string;
  type: 'api_key' | 'oauth';
  /** The key's label; for a connection, its client's name. */
  label: string;
  walletId: string;
}

/** Tells every instance that cached key lookups are stale; resolves once the signal is sent. */
export interface KeySignals {
  publishKeyChange(): Promise<void>;
}

export interface KeyService {
  /** `createdBy`: the member making it (a removal of that member ends it, unless the remover keeps it). */
  create(
    userId: string,
    walletId: string,
    input: { label: string; scopes: Scope[]; expiresAtMs: number | null; createdBy: string },
  ): Promise<CreatedKey>;
  list(userId: string, walletId: string, page: Page): Promise<{ items: KeyView[]; total: number }>;
  revoke(userId: string, walletId: string, keyId: string): Promise<KeyView>;
  /** The new key is `rotatedBy`'s: they were shown it. */
  rotate(
    userId: string,
    walletId: string,
    keyId: string,
    graceSeconds: number,
    rotatedBy: string,
  ): Promise<CreatedKey & { previousKey: KeyView }>;
  /** The key behind a bearer token (an API key or an OAuth access token) if it is usable now, or null. */
  authenticate(token: string): Promise<AgentKey | null>;
  /** Ends an OAuth connection (a reused refresh token or code): at once, on every instance. */
  revokeConnection(keyId: string): Promise<void>;
  /**
   * Runs `change` (a transaction that ends keys, e.g. with endMadeBy), then clears the key caches here and on every
   * instance before it resolves: from then on no instance accepts what it ended.
   */
  changing<T>(change: () => Promise<T>): Promise<T>;
  /** The keys and connections `memberId` made in the organization `scopeUserId` that work now or in a grace. */
  madeBy(trx: Kysely<Database>, scopeUserId: string, memberId: string, nowMs: number): Promise<MadeKey[]>;
  /**
   * Ends them now in `trx` (with `key.revoked` for each), and the authorization codes the member allowed that no
   * client redeemed yet; answers what it ended. Run inside `changing`, so the caches learn of it.
   */
  endMadeBy(trx: Kysely<Database>, scopeUserId: string, memberId: string, nowMs: number): Promise<MadeKey[]>;
  /** Drops every cached lookup (another instance changed a key). */
  clearCache(): void;
  /** Writes the batched lastUsedAt times. */
  flushLastUsed(): Promise<void>;
}

export function createKeyService(
  ctx: ServiceContext,
  signals: KeySignals,
  options: { cacheLookups: boolean },
): KeyService {
  const { store, writer, clock } = ctx;
  const cache = new Map<string, KeyRow>();
  // OAuth access tokens: the token's hash → its connection's row and the token's own expiry.
  const tokenCache = new Map<string, { row: KeyRow; expiresAtMs: number }>();
  // Bumped by every clear: a lookup that started before a clear must not cache the row it read (it may be the
  // row from before a revocation).
  let cacheGeneration = 0;
  const clearCache = () => {
    cache.clear();
    tokenCache.clear();
    cacheGeneration += 1;
  };
  const lastUsed = new Map<string, number>();

  const view = (row: KeyRow): KeyView => keyView(row, clock.nowMs(), lastUsed.get(row.id));

  async function ownedKey(
    db: Kysely<Database>,
    userId: string,
    walletId: string,
    keyId: string,
  ): Promise<KeyRow> {
    const wallet = await ownedWallet(db, userId, walletId, 'agent');
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('wallet_id', '=', wallet.id)
      .executeTakeFirst();
    if (row === undefined) throw notFound('API key');
    return row;
  }

  /** Runs a change to keys, then clears caches here and on every instance before answering. */
  async function changeKeys<T>(change: () => Promise<T>): Promise<T> {
    const result = await change();
    clearCache();
    await signals.publishKeyChange();
    return result;
  }

  async function create(
    userId: string,
    walletId: string,
    input: { label: string; scopes: Scope[]; expiresAtMs: number | null; createdBy: string },
  ) {
    const wallet = await ownedWallet(store.db, userId, walletId, 'agent');
    const nowMs = clock.nowMs();
    if (input.expiresAtMs !== null && input.expiresAtMs <= nowMs)
      throw invalid('expiresAt must be in the future');
    return writer.run(async (trx) => {
      await assertRoomForKey(trx, wallet.id, nowMs);
      return insertKey(trx, {
        walletId: wallet.id,
        userId,
        label: input.label,
        scopes: input.scopes,
        expiresAtMs: input.expiresAtMs,
        createdBy: input.createdBy,
        nowMs,
      });
    });
  }

  async function list(userId: string, walletId: string, page: Page) {
    const wallet = await ownedWallet(store.db, userId, walletId, 'agent');
    const base = store.db.selectFrom('api_keys').where('wallet_id', '=', wallet.id);
    const { rows, total } = await pageOf(base, page);
    return { items: rows.map(view), total };
  }

  async function revoke(userId: string, walletId: string, keyId: string) {
    const nowMs = clock.nowMs();
    const row = await changeKeys(() =>
      writer.run(async (trx) => {
        await endKey(trx, await ownedKey(trx, userId, walletId, keyId), nowMs);
        return ownedKey(trx, userId, walletId, keyId);
      }),
    );
    return view(row);
  }

  /**
   * Ends a key (or an OAuth connection) now and tells the owner with `key.revoked`. Revoking twice keeps the
   * first time (the key-change broadcast is sent again, in case the first one failed); revoking a key in its
   * rotation grace ends the grace now.
   */
  async function endKey(trx: Kysely<Database>, key: KeyRow, nowMs: number): Promise<void> {
    if (key.revoked_at_ms !== null && key.revoked_at_ms <= BigInt(nowMs)) return;
    await trx
      .updateTable('api_keys')
      .set({ revoked_at_ms: BigInt(nowMs) })
      .where('id', '=', key.id)
      .execute();
    const ended = { ...key, revoked_at_ms: BigInt(nowMs) };
    await emitEvent(trx, { userId: key.user_id, type: 'key.revoked', data: () => view(ended), nowMs });
  }

  async function rotate(
    userId: string,
    walletId: string,
    keyId: string,
    graceSeconds: number,
    rotatedBy: string,
  ) {
    const nowMs = clock.nowMs();
    return changeKeys(() =>
      writer.run(async (trx) => {
        const old = await ownedKey(trx, userId, walletId, keyId);
        if (old.type === 'oauth')
          throw invalidState('an OAuth connection is not rotated: its tokens rotate; revoke it to end it');
        if (old.rotated_to_key_id !== null) throw invalidState('this key was already rotated');
        if (keyStatus(timesOf(old), nowMs) !== 'active')
          throw invalidState(`this key is ${keyStatus(timesOf(old), nowMs)}`);
        await assertRoomForKey(trx, old.wallet_id, nowMs);
        const created = await insertKey(trx, {
          walletId: old.wallet_id,
          userId,
          label: old.label,
          scopes: scopesFromText(old.scopes),
          // Rotation replaces a key; it never lengthens its life.
          expiresAtMs: old.expires_at_ms === null ? null : Number(old.expires_at_ms),
          createdBy: rotatedBy,
          nowMs,
        });
        await trx
          .updateTable('api_keys')
          .set({ revoked_at_ms: BigInt(nowMs + graceSeconds * 1000), rotated_to_key_id: created.id })
          .where('id', '=', old.id)
          .execute();
        const previousKey = view(await ownedKey(trx, userId, walletId, keyId));
        await emitEvent(trx, { userId, type: 'key.rotated', data: () => previousKey, nowMs });
        return { ...created, previousKey };
      }),
    );
  }

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
      const found = await store.db
        .selectFrom('oauth_tokens as t')
        .innerJoin('api_keys as k', 'k.id', 't.key_id')
        .selectAll('k')
        .select('t.expires_at_ms as token_expires_at_ms')
        .where('t.token_hash', '=', hash)
        .where('t.kind', '=', 'access')
        .executeTakeFirst();
      if (found === undefined) return null;
      const { token_expires_at_ms, ...row } = found;
      entry = { row, expiresAtMs: Number(token_expires_at_ms) };
      if (options.cacheLookups && generation === cacheGeneration) {
        if (tokenCache.size >= KEY_CACHE_ENTRIES_MAX) tokenCache.delete(tokenCache.keys().next().value!);
        tokenCache.set(hash, entry);
      }
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

  /** Ends an OAuth connection found by its tokens (RFC 7009 revocation, a reused code or refresh token). */
  async function revokeConnection(keyId: string): Promise<void> {
    const nowMs = clock.nowMs();
    await changeKeys(() =>
      writer.run(async (trx) => {
        const key = await trx
          .selectFrom('api_keys')
          .selectAll()
          .where('id', '=', keyId)
          .where('type', '=', 'oauth')
          .executeTakeFirst();
        if (key !== undefined) await endKey(trx, key, nowMs);
      }),
    );
  }

  async function madeByRows(trx: Kysely<Database>, scopeUserId: string, memberId: string, nowMs: number) {
    const now = BigInt(nowMs);
    return trx
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', scopeUserId)
      .where('created_by', '=', memberId)
      .where((eb) => eb.or([eb('revoked_at_ms', 'is', null), eb('revoked_at_ms', '>', now)]))
      .where((eb) => eb.or([eb('expires_at_ms', 'is', null), eb('expires_at_ms', '>', now)]))
      .orderBy('created_at_ms', 'asc')
      .orderBy('id', 'asc')
      .limit(MADE_KEYS_MAX)
      .execute();
  }

  async function madeBy(trx: Kysely<Database>, scopeUserId: string, memberId: string, nowMs: number) {
    return (await madeByRows(trx, scopeUserId, memberId, nowMs)).map(madeKey);
  }

  async function endMadeBy(trx: Kysely<Database>, scopeUserId: string, memberId: string, nowMs: number) {
    const rows = await madeByRows(trx, scopeUserId, memberId, nowMs);
    for (let start = 0; start < rows.length; start += END_CHUNK_KEYS) {
      const chunk = rows.slice(start, start + END_CHUNK_KEYS);
      await trx
        .updateTable('api_keys')
        .set({ revoked_at_ms: BigInt(nowMs) })
        .where(
          'id',
          'in',
          chunk.map((row) => row.id),
        )
        .execute();
      const events = chunk.map((row) => {
        const ended = { ...row, revoked_at_ms: BigInt(nowMs) };
        return { userId: row.user_id, type: 'key.revoked' as const, data: () => view(ended), nowMs };
      });
      await emitEvents(trx, events, ctx.events);
    }
    // A code the member allowed and no client redeemed yet would become a connection after the removal. (No index
    // on member_id: codes live 10 minutes and are purged days later, so the table stays small.)
    await trx
      .updateTable('oauth_codes')
      .set({ expires_at_ms: BigInt(nowMs) })
      .where('user_id', '=', scopeUserId)
      .where('member_id', '=', memberId)
      .where('used_at_ms', 'is', null)
      .where('expires_at_ms', '>', BigInt(nowMs))
      .execute();
    return rows.map(madeKey);
  }

  async function flushLastUsed(): Promise<void> {
    if (lastUsed.size === 0) return;
    const batch = [...lastUsed.entries()];
    lastUsed.clear();
    await writer.run(async (trx) => {
      for (const [id, atMs] of batch) {
        await trx
          .updateTable('api_keys')
          .set({ last_used_at_ms: BigInt(atMs) })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_used_at_ms', 'is', null), eb('last_used_at_ms', '<', BigInt(atMs))]))
          .execute();
      }
    });
  }

  return {
    create,
    list,
    revoke,
    rotate,
    authenticate,
    revokeConnection,
    changing: changeKeys,
    madeBy,
    endMadeBy,
    clearCache,
    flushLastUsed,
  };
}

function remember(cache: Map<string, KeyRow>, hash: string, row: KeyRow): void {
  if (cache.size >= KEY_CACHE_ENTRIES_MAX) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(hash, row);
}

/** Keys that can still be used (or will be, during a rotation grace) count against the limit. */
async function assertRoomForKey(trx: Kysely<Database>, walletId: string, nowMs: number): Promise<void> {
  await lockOwnerRow(trx, 'wallets', walletId);
  const now = BigInt(nowMs);
  const count = await trx
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('wallet_id', '=', walletId)
    .where((eb) => eb.or([eb('revoked_at_ms', 'is', null), eb('revoked_at_ms', '>', now)]))
    .where((eb) => eb.or([eb('expires_at_ms', 'is', null), eb('expires_at_ms', '>', now)]))
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= KEYS_PER_WALLET_MAX) {
    throw invalid(`an agent wallet can have at most ${KEYS_PER_WALLET_MAX} usable API keys`);
  }
}

async function insertKey(
  trx: Kysely<Database>,
  input: {
    walletId: string;
    userId: string;
    label: string;
    scopes: Scope[];
    expiresAtMs: number | null;
    createdBy: string;
    nowMs: number;
  },
): Promise<CreatedKey> {
  const generated = generateApiKey();
  const id = newId('key');
  await trx
    .insertInto('api_keys')
    .values({
      id,
      wallet_id: input.walletId,
      user_id: input.userId,
      label: input.label,
      key_hash: generated.hash,
      prefix: generated.prefix,
      scopes: scopesToText(input.scopes),
      created_at_ms: BigInt(input.nowMs),
      expires_at_ms: input.expiresAtMs === null ? null : BigInt(input.expiresAtMs),
      revoked_at_ms: null,
      rotated_to_key_id: null,
      last_used_at_ms: null,
      created_by: input.createdBy,
    })
    .execute();
  return {
    id,
    key: generated.key,
    prefix: generated.prefix,
    label: input.label,
    scopes: input.scopes,
    walletId: input.walletId,
    createdAt: isoFromMs(input.nowMs),
    expiresAt: input.expiresAtMs === null ? null : isoFromMs(input.expiresAtMs),
  };
}

function madeKey(row: KeyRow): MadeKey {
  return { id: row.id, type: row.type, label: row.label, walletId: row.wallet_id };
}

function timesOf(row: KeyRow) {
  return {
    revokedAtMs: row.revoked_at_ms === null ? null : Number(row.revoked_at_ms),
    expiresAtMs: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
    rotatedToKeyId: row.rotated_to_key_id,
  };
}

function keyView(row: KeyRow, nowMs: number, pendingLastUsedMs: number | undefined): KeyView {
  const storedLastUsed = row.last_used_at_ms === null ? null : Number(row.last_used_at_ms);
  const lastUsedMs = Math.max(storedLastUsed ?? -1, pendingLastUsedMs ?? -1);
  return {
    id: row.id,
    type: row.type,
    clientName: row.type === 'oauth' ? row.label : null,
    prefix: row.prefix,
    label: row.label,
    scopes: scopesFromText(row.scopes),
    walletId: row.wallet_id,
    status: keyStatus(timesOf(row), nowMs),
    createdAt: isoFromMs(row.created_at_ms),
    expiresAt: row.expires_at_ms === null ? null : isoFromMs(row.expires_at_ms),
    revokedAt: row.revoked_at_ms === null ? null : isoFromMs(row.revoked_at_ms),
    lastUsedAt: lastUsedMs < 0 ? null : isoFromMs(lastUsedMs),
    rotatedToKeyId: row.rotated_to_key_id,
  };
}

/**
 * An OAuth connection: a key row of the wallet with the scopes the owner allowed, named after the client. Its
 * key_hash is the hash of a secret generated here and thrown away, so no bearer can ever present it as a key.
 */
export async function insertConnection(
  trx: Kysely<Database>,
  input: {
    walletId: string;
    userId: string;
    clientId: string;
    clientName: string;
    scopes: Scope[];
    /** The member who allowed the client. */
    createdBy: string;
    nowMs: number;
  },
): Promise<string> {
  await assertRoomForKey(trx, input.walletId, input.nowMs);
  const id = newId('key');
  await trx
    .insertInto('api_keys')
    .values({
      id,
      wallet_id: input.walletId,
      user_id: input.userId,
      label: input.clientName,
      key_hash: generateOAuthSecret('access').hash,
      prefix: ACCESS_TOKEN_PREFIX,
      scopes: scopesToText(input.scopes),
      created_at_ms: BigInt(input.nowMs),
      expires_at_ms: null,
      revoked_at_ms: null,
      rotated_to_key_id: null,
      last_used_at_ms: null,
      type: 'oauth',
      client_id: input.clientId,
      created_by: input.createdBy,
    })
    .execute();
  return id;
}
