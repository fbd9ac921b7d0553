import { type IdempotencyRequest, requestFingerprint } from '../../services/money/idempotency.ts';

export function idempotencyRequest(
  scope: string,
  key: string | null,
  parts: Record<string, string | null>,
): IdempotencyRequest | null {
  return key === null ? null : { scope, key, fingerprint: requestFingerprint(parts) };
}
