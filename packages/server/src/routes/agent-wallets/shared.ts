// Pieces shared by the agent-wallet routes.
import type { FastifyRequest } from 'fastify';
import { invalid } from '../../errors.ts';
import {
  IDEMPOTENCY_KEY_LENGTH_MAX,
  type IdempotencyRequest,
  requestFingerprint,
} from '../../services/idempotency.ts';

/**
 * The idempotency key of a request: the `Idempotency-Key` header or the body's `idempotencyKey` (the same
 * value if both are sent). Null when there is none.
 */
export function idempotencyKeyOf(request: FastifyRequest, fromBody: string | undefined): string | null {
  const header = request.headers['idempotency-key'];
  if (Array.isArray(header)) throw invalid('send one Idempotency-Key header');
  if (header !== undefined && (header.length === 0 || header.length > IDEMPOTENCY_KEY_LENGTH_MAX)) {
    throw invalid(`Idempotency-Key must be 1-${IDEMPOTENCY_KEY_LENGTH_MAX} characters`);
  }
  if (header !== undefined && fromBody !== undefined && header !== fromBody) {
    throw invalid('the Idempotency-Key header and idempotencyKey differ');
  }
  return header ?? fromBody ?? null;
}

export function idempotencyRequest(
  scope: string,
  key: string | null,
  parts: Record<string, string | null>,
): IdempotencyRequest | null {
  return key === null ? null : { scope, key, fingerprint: requestFingerprint(parts) };
}
