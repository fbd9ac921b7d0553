// Second factors, pure: TOTP codes (RFC 6238 — SHA-1, 6 digits, 30 s steps, one step either side) with replay
// refused by time step, single-use recovery codes, and the single-use token a password login hands out when a
// factor is still owed. Storage and rate limits live in services/identity/factors.ts.
import { createHash, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** ±1 step (RFC 6238 section 5.2's recommended network delay allowance); ±2 is refused. */
export const TOTP_TOLERANCE_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;
export const TOTP_ISSUER = 'Agent Wallet';

/** Crockford's base32 without I, L, O, U: codes read aloud or typed from paper survive. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RECOVERY_CODE_CHARS = 16; // 80 bits: a hash (not argon2) is enough against guessing a stored one

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: email, secret });
}

export type TotpCheck = { ok: true; timeStep: bigint } | { ok: false; reason: 'wrong' | 'replayed' };

/**
 * Pure except for the clock it is given: is `code` the TOTP of `secret` within ±1 step of `nowMs`, and newer
 * than the last accepted step (a code is accepted once; so is every code of an earlier step)?
 */
export async function checkTotp(
  secret: string,
  code: string,
  nowMs: number,
  lastTimeStep: bigint | null,
): Promise<TotpCheck> {
  if (!/^[0-9]{6}$/.test(code)) return { ok: false, reason: 'wrong' };
  const epochSeconds = Math.floor(nowMs / 1000);
  const result = await verify({
    secret,
    token: code,
    epoch: epochSeconds,
    period: TOTP_PERIOD_SECONDS,
    digits: TOTP_DIGITS,
    algorithm: 'sha1',
    epochTolerance: TOTP_PERIOD_SECONDS * TOTP_TOLERANCE_STEPS,
  });
  if (!result.valid) return { ok: false, reason: 'wrong' };
  // delta: how many steps from the current one the code matched (-1, 0 or +1).
  const timeStep = BigInt(Math.floor(epochSeconds / TOTP_PERIOD_SECONDS) + result.delta);
  if (lastTimeStep !== null && timeStep <= lastTimeStep) return { ok: false, reason: 'replayed' };
  return { ok: true, timeStep };
}

/** Ten fresh recovery codes as shown to the user once (`xxxx-xxxx-xxxx-xxxx`). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(RECOVERY_CODE_CHARS);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31]).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
}

/** What a typed recovery code is compared as: case, dashes and spaces do not matter. */
export function normaliseRecoveryCode(code: string): string | null {
  const bare = code.toLowerCase().replace(/[\s-]/g, '');
  return bare.length === RECOVERY_CODE_CHARS && [...bare].every((c) => RECOVERY_ALPHABET.includes(c))
    ? bare
    : null;
}

/** Recovery codes and challenge tokens are high-entropy: stored as SHA-256, compared by it. */
export function secretDigest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export type SecondFactorCode = { kind: 'totp'; code: string } | { kind: 'recovery'; code: string };

/** Pure: six digits are a TOTP code; anything shaped like a recovery code is one; else null. */
export function classifyCode(code: string): SecondFactorCode | null {
  if (/^[0-9]{6}$/.test(code)) return { kind: 'totp', code };
  const recovery = normaliseRecoveryCode(code);
  return recovery === null ? null : { kind: 'recovery', code: recovery };
}
