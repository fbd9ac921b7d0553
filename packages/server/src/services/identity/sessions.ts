// Sessions. A JWT (tokens.ts) names a server-side session; logout revokes the session, so the token dies at once
// on every instance that shares the database. A session also records where it came from, when it was last used,
// and when presence was last proven (login, step-up: step-up.ts). A removed member keeps the login row (the
// audit log names it) but no session.
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/organizations/roles.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import type { RequestMeta } from '../organizations/security-events.ts';
import { issueSessionToken, SESSION_SECONDS, type TokenClaims, verifySessionToken } from './tokens.ts';

/** A session's last use is written at most this often: not a write on every request. */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;
/** Live sessions of one user are listed up to this many (each login makes one; they last 7 days). */
export const SESSIONS_LISTED_MAX = 100;
const USER_AGENT_LENGTH_MAX = 256;

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

export interface SessionView {
  id: string;
  current: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** Opening a session (its token), checking a token against its live session, ending it. */
export function createSessions(ctx: ServiceContext, jwtSecret: Uint8Array) {
  const { store, clock } = ctx;

  /** A new session of a member (logging in is a proof of presence); answers its token. */
  async function start(userId: string, meta: RequestMeta): Promise<string> {
    await assertStillMember(store.db, userId);
    const nowMs = clock.nowMs();
    const sessionId = newId('ses');
    await insertSession(store.db, { sessionId, userId, meta, nowMs });
    return issueSessionToken(jwtSecret, { userId, sessionId }, nowMs);
  }

  async function verifyTokenSignature(token: string): Promise<TokenClaims | null> {
    return verifySessionToken(jwtSecret, token, clock.nowMs());
  }

  async function authenticate(token: string): Promise<AuthenticatedUser | null> {
    const claims = await verifyTokenSignature(token);
    if (claims === null) return null;
    const session = await sessionOfMember(store.db, claims.sessionId);
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
    return authenticatedUser(claims, session);
  }

  async function logout(sessionId: string): Promise<void> {
    await store.db
      .updateTable('sessions')
      .set({ revoked_at_ms: BigInt(clock.nowMs()) })
      .where('id', '=', sessionId)
      .where('revoked_at_ms', 'is', null)
      .execute();
  }

  return { start, verifyTokenSignature, authenticate, logout };
}

/** A user's own live sessions: listed, ended one at a time or all but the current one. */
export function createSessionList(ctx: ServiceContext) {
  const { store, clock } = ctx;

  async function list(user: TokenClaims): Promise<SessionView[]> {
    const rows = await liveSessions(store.db, user.userId, clock.nowMs())
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

  async function endSession(userId: string, sessionId: string): Promise<void> {
    const ended = await revokeSessions(
      store.db,
      userId,
      { only: sessionId },
      clock.nowMs(),
    ).executeTakeFirst();
    if (ended.numUpdatedRows !== 1n) throw new AppError('NOT_FOUND', 'no such session');
  }

  async function endOtherSessions(user: TokenClaims): Promise<number> {
    const ended = await revokeSessions(
      store.db,
      user.userId,
      { except: user.sessionId },
      clock.nowMs(),
    ).executeTakeFirst();
    return Number(ended.numUpdatedRows);
  }

  return { list, endSession, endOtherSessions };
}

async function assertStillMember(db: Kysely<Database>, userId: string): Promise<void> {
  const member = await db
    .selectFrom('members')
    .select('user_id')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  // A member removed from their organization keeps the login row (the audit log names it) but no session.
  if (member === undefined)
    throw new AppError('UNAUTHORIZED', 'this login was removed from its organization');
}

async function insertSession(
  db: Kysely<Database>,
  input: { sessionId: string; userId: string; meta: RequestMeta; nowMs: number },
): Promise<void> {
  const { nowMs } = input;
  // The session expires with the token: both are exactly 7 days from the whole second of issue.
  const expiresAtMs = (Math.floor(nowMs / 1000) + SESSION_SECONDS) * 1000;
  await db
    .insertInto('sessions')
    .values({
      id: input.sessionId,
      user_id: input.userId,
      created_at_ms: BigInt(nowMs),
      expires_at_ms: BigInt(expiresAtMs),
      revoked_at_ms: null,
      last_used_at_ms: BigInt(nowMs),
      ip: input.meta.ip,
      user_agent: input.meta.userAgent?.slice(0, USER_AGENT_LENGTH_MAX) ?? null,
      // Logging in is a proof of presence.
      stepped_up_at_ms: BigInt(nowMs),
    })
    .execute();
}

/** The session with its member, organization and user. A removed member has no members row: the inner join ends
 * their sessions even before the revocation. */
function sessionOfMember(db: Kysely<Database>, sessionId: string) {
  return db
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
    .where('sessions.id', '=', sessionId)
    .executeTakeFirst();
}

function authenticatedUser(
  claims: TokenClaims,
  session: NonNullable<Awaited<ReturnType<typeof sessionOfMember>>>,
): AuthenticatedUser {
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

function liveSessions(db: Kysely<Database>, userId: string, nowMs: number) {
  return db
    .selectFrom('sessions')
    .where('user_id', '=', userId)
    .where('revoked_at_ms', 'is', null)
    .where('expires_at_ms', '>', BigInt(nowMs));
}

function revokeSessions(
  db: Kysely<Database>,
  userId: string,
  filter: { only?: string; except?: string },
  nowMs: number,
) {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at_ms: BigInt(nowMs) })
    .where('user_id', '=', userId)
    .where('revoked_at_ms', 'is', null)
    .where('expires_at_ms', '>', BigInt(nowMs));
  if (filter.only !== undefined) query = query.where('id', '=', filter.only);
  if (filter.except !== undefined) query = query.where('id', '!=', filter.except);
  return query;
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
