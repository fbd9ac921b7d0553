// Housekeeping of the authorization server: codes and tokens a day past their expiry go, and registered clients
// nobody connected go a day after they registered (so open registration cannot fill the table for good).
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';

/** Kept a day past their end, as sessions are: a code or token that has expired can be refused as unknown. */
const OAUTH_KEPT_AFTER_EXPIRY_MS = 86_400_000;
const UNUSED_CLIENT_KEPT_MS = 86_400_000;
const PURGED_CLIENTS_PER_ROUND_MAX = 500;

/**
 * Housekeeping: codes and tokens a day past their expiry go. A used refresh token stays until it expires, so a
 * reuse within its 30 days is still recognised (and ends its connection); after that it is refused as unknown.
 */
export async function purgeEndedOAuth(db: Kysely<Database>, nowMs: number): Promise<number> {
  const cutoff = BigInt(nowMs - OAUTH_KEPT_AFTER_EXPIRY_MS);
  const codes = await db.deleteFrom('oauth_codes').where('expires_at_ms', '<=', cutoff).executeTakeFirst();
  const tokens = await db.deleteFrom('oauth_tokens').where('expires_at_ms', '<=', cutoff).executeTakeFirst();
  return Number(codes.numDeletedRows) + Number(tokens.numDeletedRows) + (await purgeUnusedClients(db, nowMs));
}

/** Registered clients a day old that no connection and no live code refers to (a bounded round). */
async function purgeUnusedClients(db: Kysely<Database>, nowMs: number): Promise<number> {
  const unused = await db
    .selectFrom('oauth_clients as c')
    .select('c.id')
    .where('c.created_at_ms', '<', BigInt(nowMs - UNUSED_CLIENT_KEPT_MS))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('api_keys as k').select('k.id').whereRef('k.client_id', '=', 'c.id'))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('oauth_codes as o').select('o.code_hash').whereRef('o.client_id', '=', 'c.id'))),
    )
    .limit(PURGED_CLIENTS_PER_ROUND_MAX)
    .execute();
  if (unused.length === 0) return 0;
  const ids = unused.map((row) => row.id);
  const deleted = await db.deleteFrom('oauth_clients').where('id', 'in', ids).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
