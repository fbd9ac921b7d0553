// argon2id password hashing with explicit parameters (OWASP 2024: 19 MiB, 2 passes, 1 lane), and the rules a
// new password must meet.
import { createRequire } from 'node:module';
import { hash, type Options, verify } from '@node-rs/argon2';

const ARGON2ID = 2 as Options['algorithm']; // Algorithm.Argon2id; a const enum cannot be imported under type stripping
const ARGON2_OPTIONS: Options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const PASSWORD_LENGTH_MIN = 8;
export const PASSWORD_LENGTH_MAX = 128;
/** How many of the ranked list's most common passwords are refused (NIST SP 800-63B: "commonly used"). */
export const COMMON_PASSWORDS_REFUSED = 10_000;

/**
 * Why a new password is refused, or null when it may be set. Every place that sets a password calls this (a
 * login does not: it must not reveal the policy). The reason never quotes the password. Length counts Unicode
 * code points, as JSON Schema's minLength/maxLength in the published document do.
 */
export function passwordProblem(password: string): string | null {
  if (/\p{Cs}/u.test(password)) return 'must be valid Unicode (it holds an unpaired surrogate)';
  if (/\p{Cc}/u.test(password)) return 'must not contain control characters';
  const length = [...password].length;
  if (length < PASSWORD_LENGTH_MIN) return `must be at least ${PASSWORD_LENGTH_MIN} characters`;
  if (length > PASSWORD_LENGTH_MAX) return `must be at most ${PASSWORD_LENGTH_MAX} characters`;
  if (/^[\p{White_Space}\p{Cf}]*$/u.test(password)) return 'must not be only spaces or invisible characters';
  if (commonPasswords().has(password.trim().toLowerCase())) {
    return 'is too common (one of the 10,000 most used); choose another';
  }
  return null;
}

let common: ReadonlySet<string> | undefined;

/**
 * The most common passwords, lower-cased, from zxcvbn-ts's ranked list (most used first). Loaded on the first
 * password set, once: about 20 ms and a few MB that a server which never sees a signup does not pay.
 */
function commonPasswords(): ReadonlySet<string> {
  if (common !== undefined) return common;
  const require = createRequire(import.meta.url);
  const { dictionary } = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  const ranked = dictionary['passwords-common'].slice(0, COMMON_PASSWORDS_REFUSED);
  common = new Set(ranked.map((word) => word.toLowerCase()));
  return common;
}

/**
 * argon2 runs on libuv's worker threads (four), 19 MiB each; on this project's 2-core machine more hashes at
 * once than cores only hold more memory. Measured under a login flood (50 connections, 5 s): four at once left
 * the process at 230-239 MB resident and 143 logins/s, two at 200-203 MB and 136 logins/s.
 */
const HASHES_AT_ONCE_MAX = 2;
let hashesRunning = 0;
const waiting: Array<() => void> = [];

/** Runs `work` when a slot is free; a finishing hash hands its slot straight to the next in line. */
async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (hashesRunning >= HASHES_AT_ONCE_MAX) await new Promise<void>((resolve) => waiting.push(resolve));
  else hashesRunning += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next === undefined) hashesRunning -= 1;
    else next();
  }
}

export function hashPassword(password: string): Promise<string> {
  return withHashSlot(() => hash(password, ARGON2_OPTIONS));
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return withHashSlot(() => verify(passwordHash, password, ARGON2_OPTIONS));
}

// A real hash of a random password: verifying against it for an unknown email costs what a real check costs,
// so the answer time does not tell whether the email exists.
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hash(crypto.randomUUID(), ARGON2_OPTIONS);
  return decoyHash;
}
