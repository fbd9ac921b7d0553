import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  generateApiKey,
  hashApiKey,
  isKeyUsable,
  isWellFormedApiKey,
  keyStatus,
  parseScopes,
} from './api-keys.ts';

test('generated keys have the contract format, a display prefix and a SHA-256 hash', () => {
  const { key, hash, prefix } = generateApiKey();
  assert.match(key, /^svc_live_[0-9A-Za-z]{43}$/);
  assert.ok(isWellFormedApiKey(key));
  assert.equal(prefix, key.slice(0, 15));
  assert.equal(hash, hashApiKey(key));
  assert.match(hash, /^[0-9a-f]{64}$/);
  assert.notEqual(generateApiKey().key, key);
});

test('malformed keys are recognised without a lookup', () => {
  for (const bad of [
    '',
    'svc_live_',
    'svc_live_short',
    `svc_test_${'a'.repeat(43)}`,
    `svc_live_${'a'.repeat(42)}!`,
  ]) {
    assert.equal(isWellFormedApiKey(bad), false, bad);
  }
});

test('scopes accept the contract forms and refuse the rest', () => {
  assert.deepEqual(parseScopes(undefined), { ok: true, scopes: ['read', 'write'] });
  assert.deepEqual(parseScopes(['write', 'read']), { ok: true, scopes: ['read', 'write'] });
  assert.deepEqual(parseScopes('read,write'), { ok: true, scopes: ['read', 'write'] });
  assert.deepEqual(parseScopes('read'), { ok: true, scopes: ['read'] });
  assert.deepEqual(parseScopes(['write']), { ok: true, scopes: ['write'] });
  for (const bad of [[], ['admin'], ['read', 'read'], 'read,admin', 42, ['read', 'write', 'read'], '']) {
    assert.equal(parseScopes(bad).ok, false, JSON.stringify(bad));
  }
});

test('a rotated key works until its grace ends, to the millisecond', () => {
  const rotated = { revokedAtMs: 10_000, expiresAtMs: null, rotatedToKeyId: 'key_new' };
  assert.equal(keyStatus(rotated, 9_999), 'rotating');
  assert.equal(isKeyUsable(rotated, 9_999), true);
  assert.equal(keyStatus(rotated, 10_000), 'revoked');
  assert.equal(isKeyUsable(rotated, 10_000), false);
  const expiring = { revokedAtMs: null, expiresAtMs: 5_000, rotatedToKeyId: null };
  assert.equal(keyStatus(expiring, 4_999), 'active');
  assert.equal(keyStatus(expiring, 5_000), 'expired');
});
