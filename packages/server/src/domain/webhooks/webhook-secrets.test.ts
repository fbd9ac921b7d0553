import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { OVERLAP_SECONDS_MAX, rotationPlan, signingSecrets } from './webhook-secrets.ts';

const endpoint = (previousSecretExpiresAtMs: number | null, previousSecret: string | null = 'whsec_old') => ({
  secret: 'whsec_new',
  previousSecret,
  previousSecretExpiresAtMs,
});

test('the previous secret signs, after the current one, until the instant it expires', () => {
  assert.deepEqual(signingSecrets(endpoint(1_000), 999), ['whsec_new', 'whsec_old']);
  assert.deepEqual(signingSecrets(endpoint(1_000), 1_000), ['whsec_new']);
  assert.deepEqual(signingSecrets(endpoint(1_000), 5_000), ['whsec_new']);
  assert.deepEqual(signingSecrets(endpoint(null, null), 0), ['whsec_new']);
  assert.deepEqual(signingSecrets(endpoint(null), 0), ['whsec_new'], 'no expiry: not kept');
});

test('a rotation overlaps for overlapSeconds; with none the replaced secret is not kept', () => {
  assert.deepEqual(rotationPlan(10_000, 60), { keepPrevious: true, previousSecretExpiresAtMs: 70_000 });
  assert.deepEqual(rotationPlan(10_000, 0), { keepPrevious: false, previousSecretExpiresAtMs: 10_000 });
});

test('whatever the overlap and the time, the current secret signs first and the old one only inside the overlap', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 40 }),
      fc.integer({ min: 0, max: OVERLAP_SECONDS_MAX }),
      fc.integer({ min: 0, max: 2 * OVERLAP_SECONDS_MAX * 1000 }),
      (rotatedAtMs, overlapSeconds, laterMs) => {
        const plan = rotationPlan(rotatedAtMs, overlapSeconds);
        const secrets = signingSecrets(
          {
            secret: 'whsec_new',
            previousSecret: plan.keepPrevious ? 'whsec_old' : null,
            previousSecretExpiresAtMs: plan.previousSecretExpiresAtMs,
          },
          rotatedAtMs + laterMs,
        );
        assert.equal(secrets[0], 'whsec_new');
        assert.equal(secrets.includes('whsec_old'), laterMs < overlapSeconds * 1000);
      },
    ),
  );
});
