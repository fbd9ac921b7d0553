import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { nextAttemptMs, RETRY_WINDOW_MS, signatureHeader } from './webhook-delivery.ts';
import { fanOut, type NewEvent } from './webhook-events.ts';

test('backoff doubles from 30 s to at most an hour, with ±20% jitter, and stops after the retry window', () => {
  const at = (attempts: number, r: number) => nextAttemptMs(attempts, 0, 1_000_000, () => r)! - 1_000_000;
  assert.equal(at(1, 0.5), 30_000);
  assert.equal(at(2, 0.5), 60_000);
  assert.equal(at(3, 0.5), 120_000);
  assert.equal(at(30, 0.5), 3_600_000);
  assert.equal(at(1, 0), 24_000);
  assert.equal(at(1, 1), 36_000);
  assert.equal(
    nextAttemptMs(40, 0, RETRY_WINDOW_MS, () => 0.5),
    null,
  );
  assert.ok(RETRY_WINDOW_MS >= 24 * 3_600_000, 'retried for at least 24 hours');
});

test('the signature is hex HMAC-SHA256 of "<t>.<body>" with the secret', () => {
  const expected = createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex');
  assert.equal(signatureHeader(['whsec_x'], 1_700_000_000, '{"a":1}'), `t=1700000000,v1=${expected}`);
});

test('during a rotation the header carries one v1 per secret, the new one first', () => {
  const mac = (secret: string) => createHmac('sha256', secret).update('1700000000.{}').digest('hex');
  assert.equal(
    signatureHeader(['whsec_new', 'whsec_old'], 1_700_000_000, '{}'),
    `t=1700000000,v1=${mac('whsec_new')},v1=${mac('whsec_old')}`,
  );
});

test('events go to the endpoints of their user that subscribe to their type', () => {
  const event = (userId: string, type: NewEvent['type']): NewEvent => ({
    userId,
    type,
    data: () => ({}),
    nowMs: 0,
  });
  const routed = fanOut(
    [event('u1', 'payment.completed'), event('u1', 'key.revoked'), event('u2', 'payment.completed')],
    [
      { id: 'all', userId: 'u1', events: null },
      { id: 'keys', userId: 'u1', events: new Set(['key.revoked']) },
    ],
  );
  assert.deepEqual(
    routed.map((r) => [r.event.type, r.event.userId, r.endpointIds]),
    [
      ['payment.completed', 'u1', ['all']],
      ['key.revoked', 'u1', ['all', 'keys']],
    ],
  );
});
