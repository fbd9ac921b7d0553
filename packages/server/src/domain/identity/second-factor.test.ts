import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  checkTotp,
  classifyCode,
  newRecoveryCodes,
  newTotpSecret,
  normaliseRecoveryCode,
  RECOVERY_CODE_COUNT,
  totpUri,
} from './second-factor.ts';

// RFC 6238 appendix B, SHA-1 rows: the seed is the ASCII "12345678901234567890"; the RFC prints 8 digits, whose
// last 6 are the 6-digit code (both are the same truncated integer modulo a power of ten).
const RFC_SECRET = base32(Buffer.from('12345678901234567890', 'ascii'));
const RFC_VECTORS: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

/** RFC 4648 base32, written here so the test does not trust the library it checks. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

/** An independent RFC 6238 implementation (RFC 4226 dynamic truncation over node:crypto's HMAC-SHA1). */
function referenceTotp(key: Buffer, epochSeconds: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(epochSeconds / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

test('RFC 6238’s published SHA-1 vectors are accepted at their times', async () => {
  for (const [seconds, eight] of RFC_VECTORS) {
    const code = eight.slice(-6);
    const result = await checkTotp(RFC_SECRET, code, seconds * 1000, null);
    assert.equal(result.ok, true, `T=${seconds} code ${code}`);
    assert.equal(referenceTotp(Buffer.from('12345678901234567890'), seconds), code, 'the reference agrees');
  }
});

test('codes of an independent implementation: ±1 step accepted, ±2 refused', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 20, maxLength: 20 }),
      fc.integer({ min: 120, max: 4_000_000_000 }),
      async (keyBytes, seconds) => {
        const key = Buffer.from(keyBytes);
        const secret = base32(key);
        const code = referenceTotp(key, seconds);
        for (const skewSteps of [-1, 0, 1]) {
          const at = (seconds + skewSteps * 30) * 1000;
          assert.equal((await checkTotp(secret, code, at, null)).ok, true, `skew ${skewSteps}`);
        }
        for (const skewSteps of [-2, 2]) {
          const at = (seconds + skewSteps * 30) * 1000;
          // A code of another step can coincide with this one (1 in 10^6 per step): only then may it pass.
          const near = [-1, 0, 1].map((d) => referenceTotp(key, seconds + (skewSteps + d) * 30));
          if (near.includes(code)) continue;
          assert.equal((await checkTotp(secret, code, at, null)).ok, false, `skew ${skewSteps}`);
        }
      },
    ),
    { seed: 6238, numRuns: 200 },
  );
});

test('a code is accepted once: its step and every earlier step are replays', async () => {
  const key = Buffer.from('0123456789abcdefghij');
  const secret = base32(key);
  const nowMs = 1_800_000_015_000;
  const code = referenceTotp(key, nowMs / 1000);
  const first = await checkTotp(secret, code, nowMs, null);
  assert.ok(first.ok);
  assert.deepEqual(await checkTotp(secret, code, nowMs + 5_000, first.timeStep), {
    ok: false,
    reason: 'replayed',
  });
  const previous = referenceTotp(key, nowMs / 1000 - 30);
  if (previous !== code) {
    assert.deepEqual(await checkTotp(secret, previous, nowMs, first.timeStep), {
      ok: false,
      reason: 'replayed',
    });
  }
  const next = referenceTotp(key, nowMs / 1000 + 30);
  assert.equal(
    (await checkTotp(secret, next, nowMs + 30_000, first.timeStep)).ok,
    true,
    'the next step is new',
  );
});

test('malformed codes are wrong, never an exception', async () => {
  const secret = newTotpSecret();
  for (const code of ['', '12345', '1234567', 'abcdef', ' 123456', '12345६']) {
    assert.deepEqual(await checkTotp(secret, code, Date.now(), null), { ok: false, reason: 'wrong' });
  }
});

test('recovery codes: ten, distinct, 80 bits each, typed in any case with or without dashes', () => {
  const codes = newRecoveryCodes();
  assert.equal(codes.length, RECOVERY_CODE_COUNT);
  assert.equal(new Set(codes).size, RECOVERY_CODE_COUNT);
  for (const code of codes) {
    assert.match(code, /^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    const bare = code.replaceAll('-', '');
    assert.equal(normaliseRecoveryCode(code.toUpperCase()), bare);
    assert.equal(normaliseRecoveryCode(` ${bare} `), bare);
    assert.deepEqual(classifyCode(code), { kind: 'recovery', code: bare });
  }
  assert.equal(normaliseRecoveryCode('too-short'), null);
  assert.equal(classifyCode('123456')?.kind, 'totp');
  assert.equal(classifyCode('nonsense'), null);
});

test('the otpauth URL names the issuer and account, and carries the secret for the authenticator app', () => {
  const secret = newTotpSecret();
  const uri = new URL(totpUri(secret, 'owner@example.test'));
  assert.equal(uri.protocol, 'otpauth:');
  assert.equal(uri.searchParams.get('secret'), secret);
  assert.equal(uri.searchParams.get('issuer'), 'Agent Wallet');
  assert.match(decodeURIComponent(uri.pathname), /owner@example\.test/);
});
