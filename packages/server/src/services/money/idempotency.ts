// Idempotency keys (Stripe's model): the first request with a key runs and its outcome is stored in the same
// database transaction; a later request with the same key and the same parameters gets that outcome again,
// and with other parameters a 409. The batch deciders (domain/money/batch.ts) apply the rule under the locks of the
// wallets the key's scope belongs to, so two identical requests can never both execute; this module chooses
// the key, fingerprints the request, reads and stores a batch's keys, and purges keys past their window.
import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { BatchCommand } from '../../domain/money/batch.ts';
import { type BatchEffects, keyOf, type StoredKey } from '../../domain/money/batch-state.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../../domain/money/idempotency.ts';
import type { Outcome } from '../../domain/outcome.ts';
import { assert, invalid } from '../../errors.ts';
import type { RunOptions } from '../../ledger/writer.ts';
import type { Dialect } from '../../store/db.ts';
import type { Database } from '../../store/schema.ts';
import type { WriteStep } from '../../store/write-plan.ts';
import type { MoneyWriter } from '../context.ts';
import type { AnswerOf } from './commands/answers.ts';
import type { StepContext } from './commands/module.ts';

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
 * Submits a money command; its outcome's data is the kind's (CommandAnswers), not a type the caller picks. The
 * one place the writer's answer is named: it is what the kind's decider returned, or the outcome it stored under
 * the key (read back from JSON), which the deciders' shared answer (`Outcome<unknown>`) cannot say.
 */
export async function submitCommand<C extends BatchCommand>(
  writer: MoneyWriter,
  command: C,
  locks: RunOptions,
): Promise<IdempotentResult<AnswerOf<C>>> {
  const answer = await writer.submit(command, locks);
  return answer as IdempotentResult<AnswerOf<C>>;
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

/** Whose key space a key is in: an agent's tools key by their wallet, its owner's REST calls by the user. */
export const keyScope = {
  wallet: (walletId: string) => `wallet:${walletId}`,
  user: (userId: string) => `user:${userId}`,
} as const;

/**
 * A request's claim on its idempotency key, or null when it sent none: the one place a claim is made — its
 * scope (keyScope), the key chosen (chooseIdempotencyKey) and the fingerprint over the request's normalised
 * parameters (requestFingerprint). REST, tools and x402 alike.
 */
export function idempotencyClaim(
  scope: string,
  key: string | null,
  parts: Record<string, string | null>,
): IdempotencyRequest | null {
  return key === null ? null : { scope, key, fingerprint: requestFingerprint(parts) };
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

/** The stored outcomes of the idempotency keys the batch names (tool keys are scoped to the locked wallet). */
export async function loadStoredKeys(
  trx: Kysely<Database>,
  commands: readonly BatchCommand[],
  dialect: Dialect,
): Promise<Map<string, StoredKey>> {
  const keys = new Map<string, StoredKey>();
  const claims = commands.flatMap((c) => (c.idempotency === null ? [] : [c.idempotency]));
  if (claims.length === 0) return keys;
  const pairs = sql.join(claims.map((c) => sql`(${c.scope}, ${c.key})`));
  const rows = await sql<{
    scope: string;
    key: string;
    request_hash: string;
    response_body: string | null;
    created_at_ms: bigint;
  }>`
    select scope, key, request_hash, response_body, created_at_ms from idempotency_keys
    where (scope, key) in (${dialect === 'sqlite' ? sql`values ${pairs}` : pairs})`.execute(trx);
  for (const row of rows.rows) {
    assert(row.response_body !== null, 'a committed idempotency key always has its outcome');
    keys.set(keyOf(row.scope, row.key), {
      fingerprint: row.request_hash,
      outcome: JSON.parse(row.response_body) as Outcome<unknown>,
      createdAtMs: Number(row.created_at_ms),
    });
  }
  return keys;
}

/** Outcomes stored under their keys; a key past its window is taken over (its row replaced). */
export function keySteps(effects: BatchEffects, { trx }: StepContext): WriteStep[] {
  if (effects.idempotency.length === 0) return [];
  const query = trx
    .insertInto('idempotency_keys')
    .values(
      effects.idempotency.map((k) => ({
        scope: k.scope,
        key: k.key,
        request_hash: k.fingerprint,
        response_status: k.outcome.ok ? 1n : 0n,
        response_body: JSON.stringify(k.outcome),
        created_at_ms: BigInt(k.nowMs),
      })),
    )
    .onConflict((oc) =>
      oc.columns(['scope', 'key']).doUpdateSet((eb) => ({
        request_hash: eb.ref('excluded.request_hash'),
        response_status: eb.ref('excluded.response_status'),
        response_body: eb.ref('excluded.response_body'),
        created_at_ms: eb.ref('excluded.created_at_ms'),
      })),
    );
  return [{ what: 'idempotency keys', query: query.compile() }];
}
