// The rows of API keys and OAuth connections (contract sections 7 and 12), and how they are written and read back:
// a new key (only its hash is stored), a connection (a key row named after its client), the room a wallet has
// for one more, and the view a listing shows.
import type { Kysely, Selectable } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import {
  generateApiKey,
  type KeyStatus,
  keyStatus,
  type Scope,
  scopesFromText,
  scopesToText,
} from '../../domain/keys/api-keys.ts';
import { ACCESS_TOKEN_PREFIX, generateOAuthSecret } from '../../domain/oauth/protocol.ts';
import { invalid } from '../../errors.ts';
import { lockOwnerRow } from '../../store/locks.ts';
import type { ApiKeysTable, Database } from '../../store/schema.ts';

export type KeyRow = Selectable<ApiKeysTable>;

export const KEYS_PER_WALLET_MAX = 100;

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

/** Keys that can still be used (or will be, during a rotation grace) count against the limit. */
export async function assertRoomForKey(
  trx: Kysely<Database>,
  walletId: string,
  nowMs: number,
): Promise<void> {
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

export async function insertKey(
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

export function madeKey(row: KeyRow): MadeKey {
  return { id: row.id, type: row.type, label: row.label, walletId: row.wallet_id };
}

export function timesOf(row: KeyRow) {
  return {
    revokedAtMs: row.revoked_at_ms === null ? null : Number(row.revoked_at_ms),
    expiresAtMs: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
    rotatedToKeyId: row.rotated_to_key_id,
  };
}

export function keyView(row: KeyRow, nowMs: number, pendingLastUsedMs: number | undefined): KeyView {
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
