// argon2id password hashing with explicit parameters (OWASP 2024: 19 MiB, 2 passes, 1 lane).
import { hash, type Options, verify } from '@node-rs/argon2';

const ARGON2ID = 2 as Options['algorithm']; // Algorithm.Argon2id; a const enum cannot be imported under type stripping
const ARGON2_OPTIONS: Options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const PASSWORD_LENGTH_MIN = 8;
export const PASSWORD_LENGTH_MAX = 128;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password, ARGON2_OPTIONS);
}

// A real hash of a random password: verifying against it for an unknown email costs what a real check costs,
// so the answer time does not tell whether the email exists.
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hash(crypto.randomUUID(), ARGON2_OPTIONS);
  return decoyHash;
}
