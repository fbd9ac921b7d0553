// Idempotency keys (Stripe's model): the first request with a key runs and its outcome is stored in the same
// database transaction; a later request with the same key and the same parameters gets that outcome again,
// and with other parameters a 409. The claim is an INSERT … ON CONFLICT DO NOTHING on the (scope, key)
// primary key, so two identical requests arriving at the same instant cannot both execute: PostgreSQL makes
// the second INSERT wait for the first transaction, SQLite runs them one after the other.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Outcome } from '../domain/outcome.ts';
import { AppError, assert, invalid } from '../errors.ts';
import type { Database } from '../store/schema.ts';

export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRequest {
  /** Whose key space: `wallet:<id>` for tools, `user:<id>` for REST. */
  scope: string;
  key: string;
  /** Hash of the normalised parameters (see requestFingerprint). */
  fingerprint: string;
}

export interface IdempotentResult<T> {
  outcome: Outcome<T>;
  replayed: boolean;
}

/**
 * The request's idempotency key: the `Idempotency-Key` header or the `idempotencyKey` field (the same value if
 * both are sent), or null. REST and tool calls alike.
 */
export function chooseIdempotencyKey(
  header: string | string[] | undefined,
  field: string | undefined,
): string | null {
  if (Array.isArray(header)) throw invalid('send one Idempotency-Key header');
  if (header !== undefined && (header.length === 0 || header.length > IDEMPOTENCY_KEY_LENGTH_MAX)) {
    throw invalid(`Idempotency-Key must be 1-${IDEMPOTENCY_KEY_LENGTH_MAX} characters`);
  }
  if (header !== undefined && field !== undefined && header !== field) {
    throw invalid('the Idempotency-Key header and the idempotencyKey field differ');
  }
  return header ?? field ?? null;
}

/** SHA-256 over the parameters in a fixed key order; callers normalise values (micro-units, lower-case). */
export function requestFingerprint(parts: Record<string, string | null>): string {
  const ordered = Object.keys(parts)
    .sort()
    .map((name) => [name, parts[name] ?? null]);
  return createHash('sha256').update(JSON.stringify(ordered)).digest('hex');
}

export async function runIdempotent<T>(
  trx: Kysely<Database>,
  request: IdempotencyRequest | null,
  nowMs: number,
  execute: () => Promise<Outcome<T>>,
): Promise<IdempotentResult<T>> {
  if (request === null) return { outcome: await execute(), replayed: false };
  const stored = await claimOrReplay<T>(trx, request, nowMs);
  if (stored !== null) return { outcome: stored, replayed: true };
  const outcome = await execute();
  await trx
    .updateTable('idempotency_keys')
    .set({ response_status: outcome.ok ? 1n : 0n, response_body: JSON.stringify(outcome) })
    .where('scope', '=', request.scope)
    .where('key', '=', request.key)
    .execute();
  return { outcome, replayed: false };
}

/** null: the key is ours now, execute. Otherwise the stored outcome of the first request. */
async function claimOrReplay<T>(
  trx: Kysely<Database>,
  request: IdempotencyRequest,
  nowMs: number,
): Promise<Outcome<T> | null> {
  // Two rounds at most: the second follows the removal of a key older than the 24 h window.
  for (let round = 0; round < 2; round += 1) {
    const claimed = await trx
      .insertInto('idempotency_keys')
      .values({
        scope: request.scope,
        key: request.key,
        request_hash: request.fingerprint,
        response_status: null,
        response_body: null,
        created_at_ms: BigInt(nowMs),
      })
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (claimed !== undefined) return null;
    const existing = await trx
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'response_body', 'created_at_ms'])
      .where('scope', '=', request.scope)
      .where('key', '=', request.key)
      .executeTakeFirst();
    if (existing === undefined) continue; // removed between our insert and select: claim again
    if (existing.created_at_ms <= BigInt(nowMs - IDEMPOTENCY_WINDOW_MS)) {
      await deleteKey(trx, request);
      continue;
    }
    if (existing.request_hash !== request.fingerprint) {
      throw new AppError(
        'IDEMPOTENCY_CONFLICT',
        'this idempotency key was already used with different parameters',
      );
    }
    assert(existing.response_body !== null, 'a committed idempotency key always has its outcome');
    return JSON.parse(existing.response_body) as Outcome<T>;
  }
  throw new AppError('IDEMPOTENCY_CONFLICT', 'this idempotency key is being used by a concurrent request');
}

async function deleteKey(trx: Kysely<Database>, request: IdempotencyRequest): Promise<void> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('scope', '=', request.scope)
    .where('key', '=', request.key)
    .execute();
}

/** Housekeeping: keys past the window are never replayed, so they can go. Returns how many were removed. */
export async function purgeExpiredKeys(db: Kysely<Database>, nowMs: number): Promise<number> {
  const cutoff = BigInt(nowMs - IDEMPOTENCY_WINDOW_MS);
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at_ms', '<=', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
