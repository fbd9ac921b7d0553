// Logging in. A right password starts a session; a user with a second factor logs in in two steps: the password
// gets a single-use mfaToken (only its digest is stored), the factor (a TOTP or recovery code, or a passkey)
// gets the session. An mfaToken is refused after MFA_TOKEN_FAILURES_MAX wrong answers.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import { decoyPasswordHash, verifyPassword } from '../../domain/identity/passwords.ts';
import { secretDigest } from '../../domain/identity/second-factor.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import type { RequestMeta } from '../organizations/security-events.ts';
import { type AuthResult, publicUser } from './account.ts';
import type { FactorMethod, MfaService } from './factors.ts';
import type { GuessLimits } from './guesses.ts';
import type { PasskeyService } from './passkeys.ts';

/** The mfaToken of a password login: single use, this long, this many wrong codes. */
export const MFA_TOKEN_TTL_MS = 5 * 60_000;
export const MFA_TOKEN_FAILURES_MAX = 5;

/** The second step of a login: a TOTP or recovery code, or a passkey's answer. */
export type FactorProof = { code: string } | { passkey: AuthenticationResponseJSON };

export function createLogin(
  ctx: ServiceContext,
  deps: {
    mfa: MfaService;
    passkeys: PasskeyService;
    startSession: (userId: string, meta: RequestMeta) => Promise<string>;
  },
) {
  const { store, clock } = ctx;
  const { mfa, passkeys, startSession } = deps;

  async function login(email: string, password: string, meta: RequestMeta, lockedOut: boolean) {
    const row = await store.db
      .selectFrom('users')
      .select(['id', 'email', 'password_hash', 'created_at_ms'])
      .where('email', '=', email)
      .executeTakeFirst();
    const passwordOk = await verifyPassword(row?.password_hash ?? (await decoyPasswordHash()), password);
    if (row === undefined || !passwordOk) {
      throw new AppError('INVALID_CREDENTIALS', 'email or password is incorrect');
    }
    const methods = await mfa.methods(row.id);
    if (methods.length > 0) throw await mfaRequired(store.db, row.id, methods, clock.nowMs());
    if (lockedOut) return null;
    const token = await startSession(row.id, meta);
    return { user: publicUser(row), token };
  }

  async function passkeyLoginOptions(mfaToken: string) {
    const token = await liveMfaToken(store.db, mfaToken, clock.nowMs());
    return passkeys.authenticationOptions(token.user_id, { mfaTokenId: token.id });
  }

  async function loginWithFactor(
    mfaToken: string,
    proof: FactorProof,
    meta: RequestMeta,
    limits: GuessLimits,
  ): Promise<AuthResult> {
    const nowMs = clock.nowMs();
    const token = await liveMfaToken(store.db, mfaToken, clock.nowMs());
    const proven =
      'code' in proof
        ? await limits.code(token.email, () => mfa.useCode(token.user_id, proof.code))
        : token.challenge !== null && (await passkeys.verify(token.user_id, token.challenge, proof.passkey));
    if (!proven) {
      await countFailure(store.db, token.id);
      await limits.wrong(token.email);
      throw new AppError(
        'INVALID_CREDENTIALS',
        'code' in proof ? 'the code is wrong or was already used' : 'the passkey was not accepted',
      );
    }
    await claimMfaToken(store.db, token.id, nowMs);
    const session = await startSession(token.user_id, meta);
    return {
      user: publicUser({ id: token.user_id, email: token.email, created_at_ms: token.created_at_ms }),
      token: session,
    };
  }

  return { login, passkeyLoginOptions, loginWithFactor };
}

/** A single-use mfaToken for the second step; only its digest is stored. */
async function mfaRequired(
  db: Kysely<Database>,
  userId: string,
  methods: FactorMethod[],
  nowMs: number,
): Promise<AppError> {
  const mfaToken = `mfa_${randomBase62(40)}`;
  await db
    .insertInto('auth_challenges')
    .values({
      id: secretDigest(mfaToken),
      user_id: userId,
      kind: 'mfa_login',
      challenge: null,
      session_id: null,
      failures: 0n,
      expires_at_ms: BigInt(nowMs + MFA_TOKEN_TTL_MS),
      used_at_ms: null,
      created_at_ms: BigInt(nowMs),
    })
    .execute();
  return new AppError(
    'MFA_REQUIRED',
    'the password is right; a second factor is required: POST /api/v1/auth/login/mfa',
    {
      details: { mfaToken, methods },
    },
  );
}

/** The live mfaToken's row with its user, or an UNAUTHORIZED refusal. */
async function liveMfaToken(db: Kysely<Database>, mfaToken: string, nowMs: number) {
  const id = secretDigest(mfaToken);
  const challenge = await db
    .selectFrom('auth_challenges')
    .innerJoin('users', 'users.id', 'auth_challenges.user_id')
    .select([
      'auth_challenges.user_id',
      'auth_challenges.failures',
      'auth_challenges.challenge',
      'users.email',
      'users.created_at_ms',
    ])
    .where('auth_challenges.id', '=', id)
    .where('kind', '=', 'mfa_login')
    .where('used_at_ms', 'is', null)
    .where('expires_at_ms', '>', BigInt(nowMs))
    .executeTakeFirst();
  if (challenge === undefined || challenge.failures >= BigInt(MFA_TOKEN_FAILURES_MAX)) {
    throw new AppError(
      'UNAUTHORIZED',
      'the mfaToken is unknown, used, expired or was refused too often: log in again',
    );
  }
  return { id, ...challenge };
}

/** A wrong answer: counted on the token, and a passkey challenge is not offered twice. */
async function countFailure(db: Kysely<Database>, tokenId: string): Promise<void> {
  await db
    .updateTable('auth_challenges')
    .set((eb) => ({ failures: eb('failures', '+', 1n), challenge: null }))
    .where('id', '=', tokenId)
    .execute();
}

/** Single use: of two requests with one token, only the one that marks it starts a session. */
async function claimMfaToken(db: Kysely<Database>, tokenId: string, nowMs: number): Promise<void> {
  const claimed = await db
    .updateTable('auth_challenges')
    .set({ used_at_ms: BigInt(nowMs) })
    .where('id', '=', tokenId)
    .where('used_at_ms', 'is', null)
    .executeTakeFirst();
  if (claimed.numUpdatedRows !== 1n)
    throw new AppError('UNAUTHORIZED', 'the mfaToken was already used: log in again');
}
