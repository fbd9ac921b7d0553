// argon2id password hashing with explicit parameters (OWASP 2024: 19 MiB, 2 passes, 1 lane), and the rules a
// new password must meet.
import { createRequire } from 'node:module';
import { hash, type Options, verify } from '@node-rs/argon2';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

const ARGON2ID = 2 as Options['algorithm']; // Algorithm.Argon2id; a const enum cannot be imported under type stripping
const ARGON2_OPTIONS: Options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const PASSWORD_LENGTH_MIN = 8;
export const PASSWORD_LENGTH_MAX = 128;
/**
 * The least zxcvbn score (0-4) a new password needs. 3 is "safely unguessable" (about 10^8 guesses or more, zxcvbn's
 * own words): online guessing is already held to 10 a quarter hour per account (`login_account`), so what the score
 * buys is time against someone holding a stolen argon2id hash, where 10^8 guesses at 19 MiB each cost hours to days
 * of a GPU per account, and 10^6 (score 2) minutes. 4 (10^10) would refuse three-word passphrases such as "a long
 * password" that 3 accepts. The dashboard's meter uses the same number.
 */
export const PASSWORD_SCORE_MIN = 3;
/**
 * The estimator reads the first 64 characters only: its matching grows faster than linearly with the length (a
 * crafted 128-character password held the event loop up to 0.9 s on a busy 2-core machine, 64 characters with
 * L33T_VARIANTS_MAX about 40 ms), and 64 characters that are strong are strong whatever follows them.
 */
export const PASSWORD_ESTIMATE_LENGTH_MAX = 64;
/**
 * Variants of the password with l33t substitutions undone that the estimator tries (its default, 100, is the
 * other half of that 0.9 s); 10 finds "p@ssw0rd" and its kin as well as 100 does.
 */
const L33T_VARIANTS_MAX = 10;

export interface PasswordStrength {
  /** 0 (too guessable) to 4 (very unguessable), zxcvbn's scale. */
  score: number;
  /** What makes it weak, in English, or null; never quotes the password. */
  warning: string | null;
  suggestions: string[];
}

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
  // Spaces around a weak password do not make it strong (" qwertyuiop " is one of a cracker's first rules), so
  // they are not counted; the password itself is kept and hashed as sent.
  const strength = passwordStrength(password.trim());
  if (strength.score >= PASSWORD_SCORE_MIN) return null;
  // zxcvbn's feedback is fixed English text ("Repeated characters like "aaa" are easy to guess."): it names the
  // kind of weakness, never a piece of the password.
  const advice = [strength.warning, ...strength.suggestions].filter((line) => line !== null).join(' ');
  const scored = `strength ${strength.score} of 4, at least ${PASSWORD_SCORE_MIN} needed`;
  return `is too easy to guess (${scored})${advice === '' ? '' : `: ${advice}`}`;
}

/** zxcvbn's estimate of the password (its first PASSWORD_ESTIMATE_LENGTH_MAX characters). */
export function passwordStrength(password: string): PasswordStrength {
  const result = estimator().check(password);
  return { score: result.score, warning: result.feedback.warning, suggestions: result.feedback.suggestions };
}

let loaded: ZxcvbnFactory | undefined;
let releaseTimer: NodeJS.Timeout | undefined;

/**
 * The estimator is let go this long after the last password set: its dictionaries are some 30 MB of heap (about
 * 50 MB resident) that a server kept for every later request after a single signup. Building it again costs half
 * a second, paid by a password set after a quiet minute.
 */
export const ESTIMATOR_IDLE_MS = 60_000;

/**
 * The estimator with zxcvbn-ts's common and English dictionaries (the ranked common passwords among them), built
 * on the first password set and kept while passwords are being set (see ESTIMATOR_IDLE_MS). Loaded with require so
 * that passwordProblem stays synchronous (zod runs it in a refinement).
 */
function estimator(): ZxcvbnFactory {
  if (releaseTimer !== undefined) clearTimeout(releaseTimer);
  releaseTimer = setTimeout(releaseEstimator, ESTIMATOR_IDLE_MS);
  // Only frees memory: never what keeps a process alive.
  releaseTimer.unref();
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  const core = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
  const common = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  const en = require('@zxcvbn-ts/language-en') as typeof import('@zxcvbn-ts/language-en');
  loaded = new core.ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary },
    graphs: common.adjacencyGraphs,
    translations: en.translations,
    maxLength: PASSWORD_ESTIMATE_LENGTH_MAX,
    l33tMaxSubstitutions: L33T_VARIANTS_MAX,
  });
  return loaded;
}

/** Drops the estimator and the dictionaries' modules, so the garbage collector can take them. */
export function releaseEstimator(): void {
  if (releaseTimer !== undefined) clearTimeout(releaseTimer);
  releaseTimer = undefined;
  loaded = undefined;
  const require = createRequire(import.meta.url);
  for (const path of Object.keys(require.cache)) {
    if (path.includes('/node_modules/@zxcvbn-ts/')) delete require.cache[path];
  }
}

/** Whether the estimator is built now (tests of its release). */
export function estimatorLoaded(): boolean {
  return loaded !== undefined;
}

/**
 * argon2 runs on libuv's worker threads (four), 19 MiB each, and that memory is the service's peak: under a login
 * flood (`npm run bench`, 50 connections) two hashes at once took resident memory to 262-266 MB on a service
 * standing at 226, one at once holds it near 245. A login is one hash (~10 ms); one at a time still answers over a
 * hundred logins a second, far above what the login rate limit lets through, and leaves the other core to the API.
 * Measured before: four at once 230-239 MB and 143 logins/s, two at once 200-203 MB and 136 logins/s (5 s floods).
 */
const HASHES_AT_ONCE_MAX = 1;
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
