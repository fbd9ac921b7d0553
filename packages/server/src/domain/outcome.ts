// The result of an executed request, success or business failure, as plain JSON. This is what idempotency
// stores and replays, so a retried request gets back exactly what the first one got.
import { AppError, type ErrorCode } from '../errors.ts';

export type Outcome<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      code: ErrorCode;
      message: string;
      details?: Record<string, unknown>;
      data?: Record<string, unknown>;
    };

export function success<T>(data: T): Outcome<T> {
  return { ok: true, data };
}

export function failure<T>(
  code: ErrorCode,
  message: string,
  extra: { details?: Record<string, unknown>; data?: Record<string, unknown> } = {},
): Outcome<T> {
  return { ok: false, code, message, ...extra };
}

/** Success data, or the failure thrown as the AppError the HTTP layer renders. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.data;
  throw new AppError(outcome.code, outcome.message, {
    ...(outcome.details === undefined ? {} : { details: outcome.details }),
    ...(outcome.data === undefined ? {} : { data: outcome.data }),
  });
}
