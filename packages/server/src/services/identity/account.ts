// A user's account: who they are, and their password (checked, changed, or reset with the operator's link,
// password-reset.ts). A new or reset password ends the other sessions (replacePassword).
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { hashPassword, verifyPassword } from '../../domain/identity/passwords.ts';
import { AppError } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import type { RequestMeta } from '../organizations/security-events.ts';
import type { WrongGuess } from './guesses.ts';
import { replacePassword, resetPassword } from './password-reset.ts';
import type { TokenClaims } from './tokens.ts';

export interface PublicUser {
  id: string;
  email: string;
  createdAt: string;
}

export interface AuthResult {
  user: PublicUser;
  token: string;
}

export function createAccount(ctx: ServiceContext) {
  const { store, writer, clock } = ctx;

  async function me(userId: string): Promise<PublicUser> {
    const row = await store.db
      .selectFrom('users')
      .select(['id', 'email', 'created_at_ms'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (row === undefined) throw new AppError('UNAUTHORIZED', 'the session is no longer valid');
    return publicUser(row);
  }

  async function changePassword(
    user: TokenClaims,
    change: { currentPassword: string; newPassword: string },
    meta: RequestMeta,
    wrong: WrongGuess,
  ): Promise<{ endedSessions: number }> {
    if (!(await passwordMatches(store.db, user.userId, change.currentPassword))) {
      await wrong(await emailOf(store.db, user.userId));
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
    me,
    emailOf: (userId: string) => emailOf(store.db, userId),
    changePassword,
    resetPasswordWithLink,
  };
}

export function publicUser(row: { id: string; email: string; created_at_ms: bigint }): PublicUser {
  return { id: row.id, email: row.email, createdAt: isoFromMs(row.created_at_ms) };
}

export async function passwordMatches(
  db: Kysely<Database>,
  userId: string,
  password: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return verifyPassword(row.password_hash, password);
}

export async function emailOf(db: Kysely<Database>, userId: string): Promise<string> {
  const row = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.email;
}
