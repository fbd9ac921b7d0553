// The keys of one agent wallet, as its owner manages them: create (the key is returned once), list, revoke and
// rotate (the old key works on through a grace). Every change runs through `changeKeys` (keys.ts), so the
// caches of every instance learn of it before it is acknowledged.
import type { Kysely } from 'kysely';
import { keyStatus, type Scope, scopesFromText } from '../../domain/keys/api-keys.ts';
import { invalid, invalidState, notFound } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import { type Page, pageOf, type ServiceContext } from '../context.ts';
import { ownedWallet } from '../wallets/wallet-rows.ts';
import { emitEvent } from '../webhooks/webhook-events.ts';
import { assertRoomForKey, type CreatedKey, insertKey, type KeyRow, type KeyView, timesOf } from './rows.ts';

export const GRACE_SECONDS_DEFAULT = 3_600;
export const GRACE_SECONDS_MAX = 7 * 24 * 3_600;

/** What the wallet's keys share with the key service: the listing's view and the cache-clearing change. */
export interface KeyChanges {
  view(row: KeyRow): KeyView;
  changeKeys<T>(change: () => Promise<T>): Promise<T>;
}

export function createWalletKeys(ctx: ServiceContext, { view, changeKeys }: KeyChanges) {
  const { store, writer, clock } = ctx;

  async function create(
    userId: string,
    walletId: string,
    input: { label: string; scopes: Scope[]; expiresAtMs: number | null; createdBy: string },
  ): Promise<CreatedKey> {
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

  async function revoke(userId: string, walletId: string, keyId: string): Promise<KeyView> {
    const nowMs = clock.nowMs();
    const row = await changeKeys(() =>
      writer.run(async (trx) => {
        await endKey(trx, await ownedKey(trx, userId, walletId, keyId), nowMs, view);
        return ownedKey(trx, userId, walletId, keyId);
      }),
    );
    return view(row);
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
        assertRotatable(old, nowMs);
        const created = await replaceKey(trx, old, { userId, graceSeconds, rotatedBy, nowMs });
        const previousKey = view(await ownedKey(trx, userId, walletId, keyId));
        await emitEvent(trx, { userId, type: 'key.rotated', data: () => previousKey, nowMs });
        return { ...created, previousKey };
      }),
    );
  }

  return { create, list, revoke, rotate };
}

/**
 * Ends a key (or an OAuth connection) now and tells the owner with `key.revoked`. Revoking twice keeps the
 * first time (the key-change broadcast is sent again, in case the first one failed); revoking a key in its
 * rotation grace ends the grace now.
 */
export async function endKey(
  trx: Kysely<Database>,
  key: KeyRow,
  nowMs: number,
  view: (row: KeyRow) => KeyView,
): Promise<void> {
  if (key.revoked_at_ms !== null && key.revoked_at_ms <= BigInt(nowMs)) return;
  await trx
    .updateTable('api_keys')
    .set({ revoked_at_ms: BigInt(nowMs) })
    .where('id', '=', key.id)
    .execute();
  const ended = { ...key, revoked_at_ms: BigInt(nowMs) };
  await emitEvent(trx, { userId: key.user_id, type: 'key.revoked', data: () => view(ended), nowMs });
}

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

/** A rotation: a new key with the old one's label, scopes and end; the old one works on through the grace. */
async function replaceKey(
  trx: Kysely<Database>,
  old: KeyRow,
  input: { userId: string; graceSeconds: number; rotatedBy: string; nowMs: number },
): Promise<CreatedKey> {
  const { nowMs } = input;
  await assertRoomForKey(trx, old.wallet_id, nowMs);
  const created = await insertKey(trx, {
    walletId: old.wallet_id,
    userId: input.userId,
    label: old.label,
    scopes: scopesFromText(old.scopes),
    // Rotation replaces a key; it never lengthens its life.
    expiresAtMs: old.expires_at_ms === null ? null : Number(old.expires_at_ms),
    createdBy: input.rotatedBy,
    nowMs,
  });
  await trx
    .updateTable('api_keys')
    .set({ revoked_at_ms: BigInt(nowMs + input.graceSeconds * 1000), rotated_to_key_id: created.id })
    .where('id', '=', old.id)
    .execute();
  return created;
}

/** Only an active API key rotates, and only once. */
function assertRotatable(old: KeyRow, nowMs: number): void {
  if (old.type === 'oauth')
    throw invalidState('an OAuth connection is not rotated: its tokens rotate; revoke it to end it');
  if (old.rotated_to_key_id !== null) throw invalidState('this key was already rotated');
  if (keyStatus(timesOf(old), nowMs) !== 'active')
    throw invalidState(`this key is ${keyStatus(timesOf(old), nowMs)}`);
}
