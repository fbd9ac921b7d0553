import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deriveAddress, parseAddress, toChecksumAddress } from './address.ts';

// Test vectors from EIP-55 itself.
const EIP55_VECTORS = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

test('checksums match the EIP-55 vectors', () => {
  for (const vector of EIP55_VECTORS) assert.equal(toChecksumAddress(vector.toLowerCase()), vector);
});

test('accepts checksummed, all-lower and all-upper addresses; refuses a wrong checksum', () => {
  const vector = EIP55_VECTORS[0]!;
  const lower = vector.toLowerCase();
  assert.deepEqual(parseAddress(vector), { ok: true, lower });
  assert.deepEqual(parseAddress(lower), { ok: true, lower });
  assert.deepEqual(parseAddress(`0x${vector.slice(2).toUpperCase()}`), { ok: true, lower });
  const broken = vector.replace('aAeb', 'AaEB');
  assert.deepEqual(parseAddress(broken), { ok: false, reason: 'has an invalid EIP-55 checksum' });
  for (const bad of ['', '0x', lower.slice(0, 41), `${lower}0`, lower.replace('0x', '0X'), 42, null]) {
    assert.equal(parseAddress(bad).ok, false, `accepted ${String(bad)}`);
  }
});

test('derived addresses are deterministic, distinct and well formed', () => {
  const secret = new Uint8Array(32).fill(7);
  const a = deriveAddress(secret, 'wal_a');
  assert.equal(a, deriveAddress(secret, 'wal_a'));
  assert.notEqual(a, deriveAddress(secret, 'wal_b'));
  assert.notEqual(a, deriveAddress(new Uint8Array(32).fill(8), 'wal_a'));
  assert.match(a, /^0x[0-9a-f]{40}$/);
});
