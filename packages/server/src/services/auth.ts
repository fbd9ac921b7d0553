// Users and their sessions. A JWT (HS256, 7 days) names a server-side session in `jti`; logout revokes the
// session, so the token dies at once on every instance that shares the database.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { isoFromMs } from '../clock.ts';
import { newId } from '../domain/ids.ts';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../domain/passwords.ts';
import { AppError } from '../errors.ts';
import { isUniqueViolation } from '../store/errors.ts';
import type { Database } from '../store/schema.ts';
import type { AddressSource } from './addresses.ts';
import type { ServiceContext } from './context.ts';
import { createMasterWallet } from './wallets.ts';

export const SESSION_SECONDS = 7 * 24 * 60 * 60;
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

export interface AuthenticatedUser {
  userId: string;
  sessionId: string;
}

export interface AuthService {
  signup(email: string, password: string): Promise<AuthResult>;
  login(email: string, password: string): Promise<AuthResult>;
  logout(sessionId: string): Promise<void>;
  me(userId: string): Promise<PublicUser>;
  /** Signature and expiry only (no database): enough to key a rate limit by user. */
  verifyTokenSignature(token: string): Promise<AuthenticatedUser | null>;
  /** Full check: signature, expiry, and a live session. */
  authenticate(token: string): Promise<AuthenticatedUser | null>;
}

export function createAuthService(
  ctx: ServiceContext,
  jwtSecret: Uint8Array,
  addresses: AddressSource,
): AuthService {
  const { store, writer, clock } = ctx;

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

  async function startSession(userId: string): Promise<string> {
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
      })
      .execute();
    return issueToken(userId, sessionId, nowMs);
  }

  async function signup(email: string, password: string): Promise<AuthResult> {
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
        await createMasterWallet(trx, { userId, nowMs, addresses });
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError('EMAIL_TAKEN', 'an account with this email already exists');
      throw error;
    }
    const token = await startSession(userId);
    return { user: { id: userId, email, createdAt: isoFromMs(nowMs) }, token };
  }

  async function login(email: string, password: string): Promise<AuthResult> {
    const row = await store.db
      .selectFrom('users')
      .select(['id', 'email', 'password_hash', 'created_at_ms'])
      .where('email', '=', email)
      .executeTakeFirst();
    const passwordOk = await verifyPassword(row?.password_hash ?? (await decoyPasswordHash()), password);
    if (row === undefined || !passwordOk) {
      throw new AppError('INVALID_CREDENTIALS', 'email or password is incorrect');
    }
    const token = await startSession(row.id);
    return { user: { id: row.id, email: row.email, createdAt: isoFromMs(row.created_at_ms) }, token };
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

  async function verifyTokenSignature(token: string): Promise<AuthenticatedUser | null> {
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
    const session = await store.db
      .selectFrom('sessions')
      .select(['user_id', 'expires_at_ms', 'revoked_at_ms'])
      .where('id', '=', claims.sessionId)
      .executeTakeFirst();
    const live =
      session !== undefined &&
      session.user_id === claims.userId &&
      session.revoked_at_ms === null &&
      session.expires_at_ms > BigInt(clock.nowMs());
    return live ? claims : null;
  }

  return { signup, login, logout, me, verifyTokenSignature, authenticate };
}

/** Sessions that ended (expired or logged out) a day ago or more are kept no longer. */
export async function purgeEndedSessions(db: Kysely<Database>, nowMs: number): Promise<number> {
  const cutoff = BigInt(nowMs - 24 * 60 * 60 * 1000);
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at_ms', '<=', cutoff), eb('revoked_at_ms', '<=', cutoff)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
