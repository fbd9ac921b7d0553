// What the passkey services share (passkeys.ts): the relying party, the rows and their view, and the challenges
// — each single use, live 5 minutes, taken (read and deleted) by the answer that uses it.
import type { Kysely } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { newId } from '../../domain/ids.ts';
import { AppError } from '../../errors.ts';
import type { LedgerWriter } from '../../ledger/writer.ts';
import type { Database, PasskeysTable } from '../../store/schema.ts';

export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
export const PASSKEYS_PER_USER_MAX = 20;
export const RP_NAME = 'Agent Wallet';

export interface RelyingParty {
  id: string;
  origin: string;
}

/** Pure: the relying party from PUBLIC_URL, else loopback's (browsers refuse WebAuthn on an IP address). */
export function relyingParty(publicUrl: string | undefined, port: number): RelyingParty {
  if (publicUrl === undefined) return { id: 'localhost', origin: `http://localhost:${port}` };
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin };
}

export interface PasskeyView {
  id: string;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function passkeyView(row: PasskeysTable): PasskeyView {
  return {
    id: row.id,
    label: row.label,
    createdAt: isoFromMs(row.created_at_ms),
    lastUsedAt: row.last_used_at_ms === null ? null : isoFromMs(row.last_used_at_ms),
  };
}

/** Reads and deletes the live challenge of this kind (and session): a challenge is answered once. */
export async function takeChallenge(
  writer: LedgerWriter,
  userId: string,
  kind: 'passkey_registration' | 'passkey_authentication',
  sessionId: string | null,
  nowMs: number,
) {
  const row = await writer.run(async (trx) => {
    let query = trx
      .selectFrom('auth_challenges')
      .select(['id', 'challenge', 'expires_at_ms'])
      .where('user_id', '=', userId)
      .where('kind', '=', kind);
    if (sessionId !== null) query = query.where('session_id', '=', sessionId);
    const found = await query.executeTakeFirst();
    if (found !== undefined) await trx.deleteFrom('auth_challenges').where('id', '=', found.id).execute();
    return found;
  });
  if (row === undefined || row.challenge === null || row.expires_at_ms <= BigInt(nowMs)) {
    throw new AppError('INVALID_STATE', 'no live challenge: ask for options again');
  }
  return row.challenge;
}

/** A single-use challenge of this kind, live PASSKEY_CHALLENGE_TTL_MS. */
export function challengeRow(
  userId: string,
  kind: 'passkey_registration' | 'passkey_authentication',
  challenge: string,
  sessionId: string | null,
  nowMs: number,
) {
  return {
    id: newId('pky'),
    user_id: userId,
    kind,
    challenge,
    session_id: sessionId,
    failures: 0n,
    expires_at_ms: BigInt(nowMs + PASSKEY_CHALLENGE_TTL_MS),
    used_at_ms: null,
    created_at_ms: BigInt(nowMs),
  };
}

export function userPasskeys(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('passkeys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(PASSKEYS_PER_USER_MAX)
    .execute();
}
