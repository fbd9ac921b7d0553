// Users and their sessions. A JWT (HS256, 7 days) names a server-side session in `jti`; logout revokes the
// session, so the token dies at once on every instance that shares the database. A session also records where
// it came from, when it was last used, and when presence was last proven (login, step-up): sensitive
// operations need that proof recent (requireStepUp). A user with a second factor logs in in two steps: the
// password gets a single-use mfaToken, the factor gets the session.
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../../domain/identity/passwords.ts';
import { secretDigest } from '../../domain/identity/second-factor.ts';
import { newId, randomBase62 } from '../../domain/ids.ts';
import type { Role } from '../../domain/organizations/roles.ts';
import { AppError } from '../../errors.ts';
import { isUniqueViolation } from '../../store/errors.ts';
import type { Database } from '../../store/schema.ts';
import type { AddressSource } from '../addresses.ts';
import type { ServiceContext } from '../context.ts';
import { acceptInvitation, foundOrganization } from '../organizations/organizations.ts';
import type { RequestMeta } from '../organizations/security-events.ts';
import { createMasterWallet } from '../wallets.ts';
import type { FactorMethod, MfaService } from './factors.ts';
import type { PasskeyService } from './passkeys.ts';
import { replacePassword, resetPassword } from './password-reset.ts';

export const SESSION_SECONDS = 7 * 24 * 60 * 60;
/** A session's last use is written at most this often: not a write on every request. */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;
/** The mfaToken of a password login: single use, this long, this many wrong codes. */
export const MFA_TOKEN_TTL_MS = 5 * 60_000;
export const MFA_TOKEN_FAILURES_MAX = 5;
const USER_AGENT_LENGTH_MAX = 256;
const JWT_ALGORITHM = 'HS256';

export interface PublicUser {
  id: string;
  email: string;
  createdAt: string;
}

export interface AuthResult {
  user: PublicUser;
  token: string;
}

export interface TokenClaims {
  userId: string;
  sessionId: string;
}

export interface AuthenticatedUser extends TokenClaims {
  /** The session's last proof of presence (login or step-up). */
  steppedUpAtMs: number;
  email: string;
  /** The member's organization, and the id its resources carry in their user_id column (its founder's). */
  organizationId: string;
  tenantId: string;
  role: Role;
  /** The organization requires a second factor of every member (contract section 9). */
  requireMfa: boolean;
}

/** What a sensitive route asks of the session: presence proven recently, always or only once a factor exists. */
export type StepUpRule = 'always' | 'withFactor';

export type StepUpMethod = FactorMethod | 'password';

export interface SessionView {
  id: string;
  current: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** Called with the account's email when a password or code was wrong: it counts in `login_account`. */
export type WrongGuess = (email: string) => Promise<void>;

/** Judges a TOTP or recovery code under the account's code limit (`mfa_code`): past it, 429 even for a right one. */
export type CodeLimit = (email: string, judge: () => Promise<boolean>) => Promise<boolean>;

/** How guesses of an account's secrets are limited: every wrong one counted, codes judged under their own limit. */
export interface GuessLimits {
  wrong: WrongGuess;
  code: CodeLimit;
}

export interface Proof {
  password?: string | undefined;
  code?: string | undefined;
  /** The browser's AuthenticationResponseJSON, after authentication options were asked for. */
  passkey?: AuthenticationResponseJSON | undefined;
}

/** The second step of a login: a TOTP or recovery code, or a passkey's answer. */
export type FactorProof = { code: string } | { passkey: AuthenticationResponseJSON };

export interface AuthService {
  /** Sets a new password with the operator's reset link (password-reset.ts); every session ends. */
  resetPasswordWithLink(
    token: string,
    newPassword: string,
    meta: RequestMeta,
  ): Promise<{ email: string; endedSessions: number }>;
  /** A new login: its own organization, or with an invitation's token that organization, with its role. */
  signup(
    email: string,
    password: string,
    meta: RequestMeta,
    invitationToken?: string | undefined,
  ): Promise<AuthResult>;
  /**
   * A right password starts a session, or with a factor active throws MFA_REQUIRED with a single-use
   * mfaToken. `lockedOut` (the account's failed-login bucket is full): only the factor path is open, and null
   * means "refuse" (the caller answers 429 whether or not the password was right).
   */
  login(email: string, password: string, meta: RequestMeta, lockedOut: boolean): Promise<AuthResult | null>;
  /** The second step of a login: the mfaToken and a TOTP or recovery code, or a passkey. */
  loginWithFactor(
    mfaToken: string,
    proof: FactorProof,
    meta: RequestMeta,
    limits: GuessLimits,
  ): Promise<AuthResult>;
  /** WebAuthn options for a login's second step (the challenge rides on the mfaToken). */
  passkeyLoginOptions(mfaToken: string): Promise<unknown>;
  logout(sessionId: string): Promise<void>;
  me(userId: string): Promise<PublicUser>;
  /** Signature and expiry only (no database): enough to key a rate limit by user. */
  verifyTokenSignature(token: string): Promise<TokenClaims | null>;
  /** Full check: signature, expiry, and a live session. */
  authenticate(token: string): Promise<AuthenticatedUser | null>;
  /** Throws STEP_UP_REQUIRED unless the session proved presence recently enough for `rule`. */
  requireStepUp(user: AuthenticatedUser, rule: StepUpRule): Promise<void>;
  /** Renews the session's proof of presence: a factor when one is active, else the password. */
  stepUp(user: AuthenticatedUser, proof: Proof, limits: GuessLimits): Promise<{ steppedUpAt: string }>;
  emailOf(userId: string): Promise<string>;
  sessions(user: TokenClaims): Promise<SessionView[]>;
  /** Ends one of the user's live sessions (404 otherwise), at once on every instance. */
  endSession(userId: string, sessionId: string): Promise<void>;
  /** Ends every live session of the user but `keep`; how many ended. */
  endOtherSessions(user: TokenClaims): Promise<number>;
  changePassword(
    user: TokenClaims,
    change: { currentPassword: string; newPassword: string },
    meta: RequestMeta,
    wrong: WrongGuess,
  ): Promise<{ endedSessions: number }>;
}

export function createAuthService(
  ctx: ServiceContext,
  options: {
    jwtSecret: Uint8Array;
    addresses: AddressSource;
    mfa: MfaService;
    passkeys: PasskeyService;
    stepUpMaxAgeMs: number;
  },
): AuthService {
  const { store, writer, clock } = ctx;
  const { jwtSecret, addresses, mfa, passkeys } = options;

  async function issueToken(userId: string, sessionId: string, issuedAtMs: number): Promise<string> {
    const iat = Math.floor(issuedAtMs / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: JWT_ALGORITHM, typ: 'JWT' })
      .setSubject(userId)
      .setJti(sessionId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + SESSION_SECONDS)
      .sign(jwtSecret);
  }

  async function startSession(userId: string, meta: RequestMeta): Promise<string> {
    const member = await store.db
      .selectFrom('members')
      .select('user_id')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    // A member removed from their organization keeps the login row (the audit log names it) but no session.
    if (member === undefined)
      throw new AppError('UNAUTHORIZED', 'this login was removed from its organization');
    const nowMs = clock.nowMs();
    const sessionId = newId('ses');
    // The session expires with the token: both are exactly 7 days from the whole second of issue.
    const expiresAtMs = (Math.floor(nowMs / 1000) + SESSION_SECONDS) * 1000;
    await store.db
      .insertInto('sessions')
      .values({
        id: sessionId,
        user_id: userId,
        created_at_ms: BigInt(nowMs),
        expires_at_ms: BigInt(expiresAtMs),
        revoked_at_ms: null,
        last_used_at_ms: BigInt(nowMs),
        ip: meta.ip,
        user_agent: meta.userAgent?.slice(0, USER_AGENT_LENGTH_MAX) ?? null,
        // Logging in is a proof of presence.
        stepped_up_at_ms: BigInt(nowMs),
      })
      .execute();
    return issueToken(userId, sessionId, nowMs);
  }

  async function signup(
    email: string,
    password: string,
    meta: RequestMeta,
    invitationToken?: string,
  ): Promise<AuthResult> {
    const passwordHash = await hashPassword(password);
    const nowMs = clock.nowMs();
    const userId = newId('usr');
    try {
      await writer.run(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            id: userId,
            email,
            password_hash: passwordHash,
            created_at_ms: BigInt(nowMs),
            password_changed_at_ms: BigInt(nowMs),
          })
          .execute();
        if (invitationToken === undefined) {
          await foundOrganization(trx, userId, nowMs);
          await createMasterWallet(trx, { userId, nowMs, addresses });
        } else {
          await acceptInvitation(trx, { userId, email, token: invitationToken, nowMs });
        }
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError('EMAIL_TAKEN', 'an account with this email already exists');
      throw error;
    }
    const token = await startSession(userId, meta);
    return { user: { id: userId, email, createdAt: isoFromMs(nowMs) }, token };
  }

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
    if (methods.length > 0) throw await mfaRequired(row.id, methods);
    if (lockedOut) return null;
    const token = await startSession(row.id, meta);
    return { user: publicUser(row), token };
  }

  /** A single-use mfaToken for the second step; only its digest is stored. */
  async function mfaRequired(userId: string, methods: FactorMethod[]): Promise<AppError> {
    const nowMs = clock.nowMs();
    const mfaToken = `mfa_${randomBase62(40)}`;
    await store.db
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
  async function liveMfaToken(mfaToken: string) {
    const id = secretDigest(mfaToken);
    const challenge = await store.db
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
      .where('expires_at_ms', '>', BigInt(clock.nowMs()))
      .executeTakeFirst();
    if (challenge === undefined || challenge.failures >= BigInt(MFA_TOKEN_FAILURES_MAX)) {
      throw new AppError(
        'UNAUTHORIZED',
        'the mfaToken is unknown, used, expired or was refused too often: log in again',
      );
    }
    return { id, ...challenge };
  }

  async function passkeyLoginOptions(mfaToken: string) {
    const token = await liveMfaToken(mfaToken);
    return passkeys.authenticationOptions(token.user_id, { mfaTokenId: token.id });
  }

  async function loginWithFactor(
    mfaToken: string,
    proof: FactorProof,
    meta: RequestMeta,
    limits: GuessLimits,
  ) {
    const nowMs = clock.nowMs();
    const token = await liveMfaToken(mfaToken);
    const proven =
      'code' in proof
        ? await limits.code(token.email, () => mfa.useCode(token.user_id, proof.code))
        : token.challenge !== null && (await passkeys.verify(token.user_id, token.challenge, proof.passkey));
    if (!proven) {
      await store.db
        .updateTable('auth_challenges')
        .set((eb) => ({ failures: eb('failures', '+', 1n), challenge: null }))
        .where('id', '=', token.id)
        .execute();
      await limits.wrong(token.email);
      throw new AppError(
        'INVALID_CREDENTIALS',
        'code' in proof ? 'the code is wrong or was already used' : 'the passkey was not accepted',
      );
    }
    // Single use: of two requests with one token, only the one that marks it starts a session.
    const claimed = await store.db
      .updateTable('auth_challenges')
      .set({ used_at_ms: BigInt(nowMs) })
      .where('id', '=', token.id)
      .where('used_at_ms', 'is', null)
      .executeTakeFirst();
    if (claimed.numUpdatedRows !== 1n)
      throw new AppError('UNAUTHORIZED', 'the mfaToken was already used: log in again');
    const session = await startSession(token.user_id, meta);
    return {
      user: publicUser({ id: token.user_id, email: token.email, created_at_ms: token.created_at_ms }),
      token: session,
    };
  }

  async function logout(sessionId: string): Promise<void> {
    await store.db
      .updateTable('sessions')
      .set({ revoked_at_ms: BigInt(clock.nowMs()) })
      .where('id', '=', sessionId)
      .where('revoked_at_ms', 'is', null)
      .execute();
  }

  async function me(userId: string): Promise<PublicUser> {
    const row = await store.db
      .selectFrom('users')
      .select(['id', 'email', 'created_at_ms'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (row === undefined) throw new AppError('UNAUTHORIZED', 'the session is no longer valid');
    return { id: row.id, email: row.email, createdAt: isoFromMs(row.created_at_ms) };
  }

  async function verifyTokenSignature(token: string): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, jwtSecret, {
        algorithms: [JWT_ALGORITHM],
        currentDate: new Date(clock.nowMs()),
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      });
      return { userId: payload.sub!, sessionId: payload.jti! };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  }

  async function authenticate(token: string): Promise<AuthenticatedUser | null> {
    const claims = await verifyTokenSignature(token);
    if (claims === null) return null;
    // A removed member has no members row: the inner join ends their sessions even before the revocation.
    const session = await store.db
      .selectFrom('sessions')
      .innerJoin('members', 'members.user_id', 'sessions.user_id')
      .innerJoin('organizations', 'organizations.id', 'members.organization_id')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'users.email',
        'sessions.user_id',
        'sessions.expires_at_ms',
        'sessions.revoked_at_ms',
        'sessions.last_used_at_ms',
        'sessions.stepped_up_at_ms',
        'sessions.created_at_ms',
        'members.role',
        'organizations.id as organization_id',
        'organizations.scope_user_id',
        'organizations.require_mfa',
      ])
      .where('sessions.id', '=', claims.sessionId)
      .executeTakeFirst();
    const nowMs = clock.nowMs();
    const live =
      session !== undefined &&
      session.user_id === claims.userId &&
      session.revoked_at_ms === null &&
      session.expires_at_ms > BigInt(nowMs);
    if (!live) return null;
    if (
      session.last_used_at_ms === null ||
      session.last_used_at_ms < BigInt(nowMs - SESSION_TOUCH_INTERVAL_MS)
    ) {
      await store.db
        .updateTable('sessions')
        .set({ last_used_at_ms: BigInt(nowMs) })
        .where('id', '=', claims.sessionId)
        .execute();
    }
    return {
      ...claims,
      steppedUpAtMs: Number(session.stepped_up_at_ms ?? session.created_at_ms),
      email: session.email,
      organizationId: session.organization_id,
      tenantId: session.scope_user_id,
      role: session.role,
      requireMfa: session.require_mfa === 1n,
    };
  }

  async function requireStepUp(user: AuthenticatedUser, rule: StepUpRule): Promise<void> {
    if (clock.nowMs() - user.steppedUpAtMs <= options.stepUpMaxAgeMs) return;
    const methods = await mfa.methods(user.userId);
    if (rule === 'withFactor' && methods.length === 0) return;
    const accepted: StepUpMethod[] = methods.length === 0 ? ['password'] : methods;
    throw new AppError(
      'STEP_UP_REQUIRED',
      `this operation needs presence proven in the last ${Math.round(options.stepUpMaxAgeMs / 1000)} seconds: POST /api/v1/auth/step-up`,
      { details: { methods: accepted } },
    );
  }

  async function stepUp(user: AuthenticatedUser, proof: Proof, limits: GuessLimits) {
    const methods = await mfa.methods(user.userId);
    const email = await emailOf(user.userId);
    let proven: boolean;
    if (methods.length > 0) {
      if (proof.passkey !== undefined) {
        // The answer to POST /auth/step-up/passkey-options: that session's challenge, taken once.
        proven = await passkeys.verifyStepUp(user.userId, user.sessionId, proof.passkey);
      } else if (proof.code !== undefined) {
        const code = proof.code;
        proven = await limits.code(email, () => mfa.useCode(user.userId, code));
      } else {
        throw new AppError(
          'VALIDATION_ERROR',
          'a second factor is active: step up with code (TOTP or recovery code) or passkey',
          {
            details: { methods },
          },
        );
      }
    } else {
      if (proof.password === undefined) throw new AppError('VALIDATION_ERROR', 'password is required');
      proven = await passwordMatches(user.userId, proof.password);
    }
    if (!proven) {
      await limits.wrong(email);
      throw new AppError(
        'INVALID_CREDENTIALS',
        methods.length === 0
          ? 'the password is incorrect'
          : proof.passkey !== undefined
            ? 'the passkey was not accepted'
            : 'the code is wrong or was already used',
      );
    }
    const nowMs = clock.nowMs();
    await store.db
      .updateTable('sessions')
      .set({ stepped_up_at_ms: BigInt(nowMs) })
      .where('id', '=', user.sessionId)
      .execute();
    return { steppedUpAt: isoFromMs(nowMs) };
  }

  async function passwordMatches(userId: string, password: string): Promise<boolean> {
    const row = await store.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return verifyPassword(row.password_hash, password);
  }

  async function emailOf(userId: string): Promise<string> {
    const row = await store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    return row.email;
  }

  async function sessions(user: TokenClaims): Promise<SessionView[]> {
    const rows = await liveSessions(user.userId)
      .select(['id', 'created_at_ms', 'last_used_at_ms', 'ip', 'user_agent'])
      .orderBy('created_at_ms', 'desc')
      .orderBy('id', 'desc')
      .limit(SESSIONS_LISTED_MAX)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      current: r.id === user.sessionId,
      createdAt: isoFromMs(r.created_at_ms),
      lastUsedAt: r.last_used_at_ms === null ? null : isoFromMs(r.last_used_at_ms),
      ip: r.ip,
      userAgent: r.user_agent,
    }));
  }

  function liveSessions(userId: string) {
    return store.db
      .selectFrom('sessions')
      .where('user_id', '=', userId)
      .where('revoked_at_ms', 'is', null)
      .where('expires_at_ms', '>', BigInt(clock.nowMs()));
  }

  function revokeSessions(userId: string, filter: { only?: string; except?: string }) {
    let query = store.db
      .updateTable('sessions')
      .set({ revoked_at_ms: BigInt(clock.nowMs()) })
      .where('user_id', '=', userId)
      .where('revoked_at_ms', 'is', null)
      .where('expires_at_ms', '>', BigInt(clock.nowMs()));
    if (filter.only !== undefined) query = query.where('id', '=', filter.only);
    if (filter.except !== undefined) query = query.where('id', '!=', filter.except);
    return query;
  }

  async function endSession(userId: string, sessionId: string): Promise<void> {
    const ended = await revokeSessions(userId, { only: sessionId }).executeTakeFirst();
    if (ended.numUpdatedRows !== 1n) throw new AppError('NOT_FOUND', 'no such session');
  }

  async function endOtherSessions(user: TokenClaims): Promise<number> {
    const ended = await revokeSessions(user.userId, { except: user.sessionId }).executeTakeFirst();
    return Number(ended.numUpdatedRows);
  }

  async function changePassword(
    user: TokenClaims,
    change: { currentPassword: string; newPassword: string },
    meta: RequestMeta,
    wrong: WrongGuess,
  ) {
    if (!(await passwordMatches(user.userId, change.currentPassword))) {
      await wrong(await emailOf(user.userId));
      throw new AppError('INVALID_CREDENTIALS', 'currentPassword is incorrect');
    }
    const passwordHash = await hashPassword(change.newPassword);
    const nowMs = clock.nowMs();
    const endedSessions = await writer.run((trx) =>
      replacePassword(trx, {
        userId: user.userId,
        passwordHash,
        keepSessionId: user.sessionId,
        detail: {},
        meta,
        nowMs,
        outbox: ctx.events,
      }),
    );
    return { endedSessions };
  }

  /** A forgotten password, with the operator's reset link (password-reset.ts): every session ends. */
  async function resetPasswordWithLink(token: string, newPassword: string, meta: RequestMeta) {
    // Hashed before the transaction (argon2 is slow); an unknown link costs the same.
    const passwordHash = await hashPassword(newPassword);
    const nowMs = clock.nowMs();
    return writer.run((trx) => resetPassword(trx, { token, passwordHash, meta, nowMs, outbox: ctx.events }));
  }

  return {
    resetPasswordWithLink,
    signup,
    login,
    loginWithFactor,
    passkeyLoginOptions,
    logout,
    me,
    verifyTokenSignature,
    authenticate,
    requireStepUp,
    stepUp,
    emailOf,
    sessions,
    endSession,
    endOtherSessions,
    changePassword,
  };
}

/** Live sessions of one user are listed up to this many (each login makes one; they last 7 days). */
export const SESSIONS_LISTED_MAX = 100;

function publicUser(row: { id: string; email: string; created_at_ms: bigint }): PublicUser {
  return { id: row.id, email: row.email, createdAt: isoFromMs(row.created_at_ms) };
}

/** Sessions that ended (expired or logged out) a day ago or more are kept no longer. */
export async function purgeEndedSessions(db: Kysely<Database>, nowMs: number): Promise<number> {
  const cutoff = BigInt(nowMs - 24 * 60 * 60 * 1000);
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at_ms', '<=', cutoff), eb('revoked_at_ms', '<=', cutoff)]))
    .executeTakeFirst();
  // Login challenges live minutes; a day past expiry nothing can refer to them.
  await db.deleteFrom('auth_challenges').where('expires_at_ms', '<=', cutoff).execute();
  return Number(result.numDeletedRows);
}
