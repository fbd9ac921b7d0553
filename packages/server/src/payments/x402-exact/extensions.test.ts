import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  declarePaymentIdentifierExtension,
  isValidPaymentId,
  validatePaymentIdentifier,
} from '@x402/extensions/payment-identifier';
import { answeredExtensions, declaredExtensionsJson, paymentIdOf } from './extensions.ts';

const required = (extensions: unknown, x402Version = 2) => ({ x402Version, accepts: [], extensions });
const NONCE = `0x${'0f'.repeat(32)}`;

test('declaredExtensionsJson keeps the payment-identifier declaration of a v2 answer, and nothing else', () => {
  const declared = declarePaymentIdentifierExtension(true);
  const kept = declaredExtensionsJson(required({ 'payment-identifier': declared, bazaar: { info: {} } }));
  assert.deepEqual(JSON.parse(kept!), { 'payment-identifier': declared });
  assert.equal(declaredExtensionsJson(required({ bazaar: { info: {} } })), null, 'not declared');
  assert.equal(declaredExtensionsJson(required(undefined)), null);
  assert.equal(declaredExtensionsJson(required(['payment-identifier'])), null);
  assert.equal(
    declaredExtensionsJson(required({ 'payment-identifier': { info: {} } })),
    null,
    'no required flag',
  );
  assert.equal(declaredExtensionsJson(required({ 'payment-identifier': declared }, 1)), null, 'v1 has none');
  // An oversized declaration is kept without its schema (what the seller checks the echo against is `info`).
  const huge = { ...declared, schema: { ...declared.schema, description: 'x'.repeat(10_000) } };
  assert.deepEqual(JSON.parse(declaredExtensionsJson(required({ 'payment-identifier': huge }))!), {
    'payment-identifier': { info: { required: true } },
  });
});

test('answeredExtensions: the declaration with an id of the nonce, valid for the extension; none without one', () => {
  assert.equal(answeredExtensions(null, NONCE), undefined);
  const json = declaredExtensionsJson(
    required({ 'payment-identifier': declarePaymentIdentifierExtension(false) }),
  );
  const answered = answeredExtensions(json, NONCE)!;
  const extension = answered['payment-identifier'] as { info: { id: string; required: boolean } };
  assert.equal(extension.info.id, paymentIdOf(NONCE));
  assert.equal(extension.info.required, false);
  assert.ok(isValidPaymentId(extension.info.id));
  assert.deepEqual(validatePaymentIdentifier(extension), { valid: true });
  assert.deepEqual(answeredExtensions(json, NONCE), answered, 'the same nonce, the same id');
  assert.notEqual(paymentIdOf(`0x${'1e'.repeat(32)}`), extension.info.id);
});
