// API keys of agent wallets: create (the key is returned once, only its hash is stored), list, revoke, rotate,
// and the per-request authentication of tool calls. Assembled here from the wallet's keys (wallet-keys.ts), the
// cached lookups (lookups.ts) and what a member made (made-by.ts). Lookups may be served from an in-process
// cache; every change to a key clears it here and bumps the cross-instance signal before the change is
// acknowledged (changeKeys).
import type { Kysely } from 'kysely';
import type { Scope } from '../../domain/keys/api-keys.ts';
import type { Database } from '../../store/schema.ts';
import type { Page, ServiceContext } from '../context.ts';
import { type AgentKey, createKeyLookups } from './lookups.ts';
import { endMadeBy, madeBy } from './made-by.ts';
import { type CreatedKey, type KeyRow, type KeyView, keyView, type MadeKey } from './rows.ts';
import { createWalletKeys, endKey } from './wallet-keys.ts';

export type { AgentKey } from './lookups.ts';
export {
  type CreatedKey,
  insertConnection,
  KEYS_PER_WALLET_MAX,
  type KeyView,
  type MadeKey,
} from './rows.ts';
export { GRACE_SECONDS_DEFAULT, GRACE_SECONDS_MAX } from './wallet-keys.ts';

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
  const { writer, clock } = ctx;
  const lastUsed = new Map<string, number>();
  const lookups = createKeyLookups(ctx, options, lastUsed);
  const view = (row: KeyRow): KeyView => keyView(row, clock.nowMs(), lastUsed.get(row.id));

  /** Runs a change to keys, then clears caches here and on every instance before answering. */
  async function changeKeys<T>(change: () => Promise<T>): Promise<T> {
    const result = await change();
    lookups.clear();
    await signals.publishKeyChange();
    return result;
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
        if (key !== undefined) await endKey(trx, key, nowMs, view);
      }),
    );
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
    ...createWalletKeys(ctx, { view, changeKeys }),
    authenticate: lookups.authenticate,
    revokeConnection,
    changing: changeKeys,
    madeBy,
    endMadeBy: (trx, scopeUserId, memberId, nowMs) =>
      endMadeBy(trx, { scopeUserId, memberId, nowMs }, view, ctx.events),
    clearCache: lookups.clear,
    flushLastUsed,
  };
}
