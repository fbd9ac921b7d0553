// A forgotten password, reset through the operator: `agent-wallet reset-password --email` issues a single-use
// link (1 hour) that the operator hands to the person, who sets a new password at /reset-password. No email
// carries it: a reset link is a secret, and secrets never go by mail (a mailbox is the weakest guard of an account
// that holds money). The reset ends every session; a second factor stays, so a login still asks for it.
import type { Kysely } from 'kysely';
import { secretDigest } from '../../domain/identity/second-factor.ts';
import { randomBase62 } from '../../domain/ids.ts';
import { AppError, assert } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import { type RequestMeta, recordSecurityEvent } from '../organizations/security-events.ts';
import type { EventOutbox } from '../webhooks/webhook-events.ts';

export const RESET_TOKEN_PREFIX = 'pwr_';
const RESET_TOKEN_CHARS = 40;
export const RESET_TTL_MS = 3_600_000;
/** A token as a client may send it: the prefix and 40 base62 characters. */
const RESET_TOKEN_PATTERN = /^pwr_[0-9A-Za-z]{40}$/;

/**
 * A new reset link's token for the account with `email`, or null when there is none. Earlier links of that
 * account end: only the newest one works. Only the token's digest is stored.
 */
export async function issuePasswordReset(
  db: Kysely<Database>,
  email: string,
  nowMs: number,
): Promise<{ token: string; userId: string; expiresAtMs: number } | null> {
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  if (user === undefined) return null;
  const token = `${RESET_TOKEN_PREFIX}${randomBase62(RESET_TOKEN_CHARS)}`;
  assert(RESET_TOKEN_PATTERN.test(token), 'a reset token has its documented shape');
  const expiresAtMs = nowMs + RESET_TTL_MS;
  await db.transaction().execute(async (trx) => {
    await endOpenResets(trx, user.id, nowMs);
    await trx
      .insertInto('auth_challenges')
      .values({
        id: secretDigest(token),
        user_id: user.id,
        kind: 'password_reset',
        challenge: null,
        session_id: null,
        failures: 0n,
        expires_at_ms: BigInt(expiresAtMs),
        used_at_ms: null,
        created_at_ms: BigInt(nowMs),
      })
      .execute();
  });
  return { token, userId: user.id, expiresAtMs };
}

const refused = () =>
  new AppError('UNAUTHORIZED', 'the reset link is unknown, used or expired: ask the operator for a new one');

/**
 * Sets the new password of the link's account, inside `trx`: the link is claimed (of two requests with one link,
 * one wins), every session ends, and `security.password_changed` is recorded. Answers the account's email (its
 * login lock-out is keyed by it) and the sessions ended.
 */
export async function resetPassword(
  trx: Kysely<Database>,
  input: { token: string; passwordHash: string; meta: RequestMeta; nowMs: number; outbox: EventOutbox },
): Promise<{ email: string; endedSessions: number }> {
  if (!RESET_TOKEN_PATTERN.test(input.token)) throw refused();
  const id = secretDigest(input.token);
  const link = await trx
    .selectFrom('auth_challenges as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select(['c.user_id', 'u.email'])
    .where('c.id', '=', id)
    .where('c.kind', '=', 'password_reset')
    .where('c.used_at_ms', 'is', null)
    .where('c.expires_at_ms', '>', BigInt(input.nowMs))
    .executeTakeFirst();
  if (link === undefined) throw refused();
  const claimed = await trx
    .updateTable('auth_challenges')
    .set({ used_at_ms: BigInt(input.nowMs) })
    .where('id', '=', id)
    .where('used_at_ms', 'is', null)
    .executeTakeFirst();
  if (claimed.numUpdatedRows !== 1n) throw refused();
  // Links issued at once by two operators' commands: none of them outlives the reset.
  await endOpenResets(trx, link.user_id, input.nowMs);
  const endedSessions = await replacePassword(trx, {
    userId: link.user_id,
    passwordHash: input.passwordHash,
    keepSessionId: null,
    detail: { by: 'reset link' },
    meta: input.meta,
    nowMs: input.nowMs,
    outbox: input.outbox,
  });
  return { email: link.email, endedSessions };
}

/**
 * A password set anew, inside `trx` (a change by the member, or a reset link): the hash is stored, every session
 * but `keepSessionId` ends, and `security.password_changed` is recorded with `detail`. Answers the sessions ended.
 */
export async function replacePassword(
  trx: Kysely<Database>,
  input: {
    userId: string;
    passwordHash: string;
    keepSessionId: string | null;
    detail: Record<string, string>;
    meta: RequestMeta;
    nowMs: number;
    outbox: EventOutbox;
  },
): Promise<number> {
  const nowMs = BigInt(input.nowMs);
  await trx
    .updateTable('users')
    .set({ password_hash: input.passwordHash, password_changed_at_ms: nowMs })
    .where('id', '=', input.userId)
    .execute();
  let sessions = trx
    .updateTable('sessions')
    .set({ revoked_at_ms: nowMs })
    .where('user_id', '=', input.userId)
    .where('revoked_at_ms', 'is', null);
  if (input.keepSessionId !== null) sessions = sessions.where('id', '!=', input.keepSessionId);
  const ended = Number((await sessions.executeTakeFirst()).numUpdatedRows);
  await recordSecurityEvent(
    trx,
    {
      userId: input.userId,
      type: 'security.password_changed',
      detail: { endedSessions: String(ended), ...input.detail },
      meta: input.meta,
      nowMs: input.nowMs,
    },
    input.outbox,
  );
  return ended;
}

async function endOpenResets(trx: Kysely<Database>, userId: string, nowMs: number): Promise<void> {
  await trx
    .updateTable('auth_challenges')
    .set({ used_at_ms: BigInt(nowMs) })
    .where('user_id', '=', userId)
    .where('kind', '=', 'password_reset')
    .where('used_at_ms', 'is', null)
    .execute();
}
