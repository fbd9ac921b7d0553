// verifyWebhook: the SDK half of the webhook signature (the server half is tested in packages/server).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { verifyWebhook, WebhookSignatureError } from '../src/index.ts';

const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ0123456789';
const body = JSON.stringify({
  id: 'evt_1',
  type: 'payment.completed',
  createdAt: '2026-11-23T00:00:00.000Z',
  data: { id: 'tx_1' },
});
const sign = (t: number, text = body) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${text}`).digest('hex')}`;

test('a correct signature within the tolerance returns the event', async () => {
  const event = await verifyWebhook(body, sign(1_000), secret, 300, 1_100);
  assert.equal(event.id, 'evt_1');
  assert.equal(event.type, 'payment.completed');
  assert.deepEqual(event.data, { id: 'tx_1' });
  assert.equal(
    (await verifyWebhook(new TextEncoder().encode(body), sign(1_000), secret, 300, 1_000)).id,
    'evt_1',
  );
});

test('a wrong secret, a changed body, an old timestamp or a malformed header is refused', async () => {
  const refused = (p: Promise<unknown>) => assert.rejects(p, WebhookSignatureError);
  await refused(verifyWebhook(body, sign(1_000), 'whsec_other', 300, 1_000));
  await refused(verifyWebhook(body.replace('tx_1', 'tx_2'), sign(1_000), secret, 300, 1_000));
  await refused(verifyWebhook(body, sign(1_000), secret, 300, 1_301));
  await refused(verifyWebhook(body, undefined, secret));
  await refused(verifyWebhook(body, 'v1=abc', secret));
  await refused(verifyWebhook(body, `t=1000,v1=${'0'.repeat(64)}`, secret, 300, 1_000));
});
