// Idempotency keys (Stripe's model): the first request with a key runs and its outcome is stored in the same
// database transaction; a later request with the same key and the same parameters gets that outcome again,
// and with other parameters a 409. The batch deciders (domain/money/batch.ts) apply the rule under the locks of the
// wallets the key's scope belongs to, so two identical requests can never both execute; this module chooses
// the key, fingerprints the request and purges keys past their window.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { BatchCommand } from '../../domain/money/batch.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../../domain/money/idempotency.ts';
import type { Outcome } from '../../domain/outcome.ts';
import { invalid } from '../../errors.ts';
import type { RunOptions } from '../../ledger/writer.ts';
import type { Database } from '../../store/schema.ts';
import type { MoneyWriter } from '../context.ts';

export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;
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
 * Submits a money command and names its outcome's data for the caller: the one place that is done. The writer
 * answers with what the command's decider returned, or the outcome that decider stored under the key (read back
 * from JSON): the data is the view the kind decides, which the deciders' shared answer (`Outcome<unknown>`)
 * cannot say.
 */
export async function submitCommand<T>(
  writer: MoneyWriter,
  command: BatchCommand,
  locks: RunOptions,
): Promise<IdempotentResult<T>> {
  const answer = await writer.submit(command, locks);
  return answer as IdempotentResult<T>;
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

/** Housekeeping: keys past the window are never replayed, so they can go. Returns how many were removed. */
export async function purgeExpiredKeys(db: Kysely<Database>, nowMs: number): Promise<number> {
  const cutoff = BigInt(nowMs - IDEMPOTENCY_WINDOW_MS);
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at_ms', '<=', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
