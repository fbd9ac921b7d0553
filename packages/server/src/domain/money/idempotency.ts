// The idempotency rule the batch deciders apply under their locks (services/money/idempotency.ts has the rest: the
// key of a request, its fingerprint, and the purge of keys past the window).
import { AppError } from '../../errors.ts';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Whether an outcome stored at `createdAtMs` is still replayed at `nowMs` (past the window a key is free again). */
export function keyIsLive(createdAtMs: number, nowMs: number): boolean {
  return createdAtMs > nowMs - IDEMPOTENCY_WINDOW_MS;
}

/** The same key with other parameters: a 409, never a replay and never a second execution. */
export function idempotencyConflict(): AppError {
  return new AppError(
    'IDEMPOTENCY_CONFLICT',
    'this idempotency key was already used with different parameters',
  );
}
