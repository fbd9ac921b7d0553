// Webhook signing secrets and their rotation (contract section 7). Pure: which secrets sign a delivery at a given
// time, and what a rotation keeps. A rotation keeps the replaced secret signing for an overlap, so a receiver
// can deploy the new secret without refusing an event signed with the old one meanwhile.

export const OVERLAP_SECONDS_DEFAULT = 86_400;
export const OVERLAP_SECONDS_MAX = 604_800;

export interface EndpointSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAtMs: number | null;
}

/** The secrets that sign a delivery made at `nowMs`: the current one first, then the previous until it expires. */
export function signingSecrets(endpoint: EndpointSecrets, nowMs: number): string[] {
  const { secret, previousSecret, previousSecretExpiresAtMs } = endpoint;
  const overlapping =
    previousSecret !== null && previousSecretExpiresAtMs !== null && nowMs < previousSecretExpiresAtMs;
  return overlapping ? [secret, previousSecret] : [secret];
}

export interface RotationPlan {
  /** The replaced secret keeps signing (false with no overlap: it is dropped at once, not kept at rest). */
  keepPrevious: boolean;
  previousSecretExpiresAtMs: number;
}

/**
 * A rotation at `nowMs` with `overlapSeconds`. The secret replaced is always the current one: rotating again
 * during an overlap drops the older previous secret and keeps the one being replaced.
 */
export function rotationPlan(nowMs: number, overlapSeconds: number): RotationPlan {
  return { keepPrevious: overlapSeconds > 0, previousSecretExpiresAtMs: nowMs + overlapSeconds * 1000 };
}
