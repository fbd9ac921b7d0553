// The keys and OAuth connections a member made in an organization: what a removal of that member names, and
// ends (unless the remover keeps them), with the authorization codes the member allowed that no client redeemed.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { EventOutbox } from '../context.ts';
import { AGENT_WALLETS_PER_USER_MAX } from '../wallets/wallets.ts';
import { emitEvents } from '../webhooks/webhook-events.ts';
import { KEYS_PER_WALLET_MAX, type KeyRow, type KeyView, type MadeKey, madeKey } from './rows.ts';

/** The most usable keys an organization can hold (every wallet full): what a member can have made. */
const MADE_KEYS_MAX = AGENT_WALLETS_PER_USER_MAX * KEYS_PER_WALLET_MAX;
/** Keys ended by one statement: well inside both stores' limits on a statement's parameters. */
const END_CHUNK_KEYS = 500;

export async function madeBy(trx: Kysely<Database>, scopeUserId: string, memberId: string, nowMs: number) {
  return (await madeByRows(trx, scopeUserId, memberId, nowMs)).map(madeKey);
}

/** Ends what `memberId` made, now in `trx`, with `key.revoked` for each; answers what it ended. */
export async function endMadeBy(
  trx: Kysely<Database>,
  made: { scopeUserId: string; memberId: string; nowMs: number },
  view: (row: KeyRow) => KeyView,
  outbox: EventOutbox,
): Promise<MadeKey[]> {
  const { scopeUserId, memberId, nowMs } = made;
  const rows = await madeByRows(trx, scopeUserId, memberId, nowMs);
  for (let start = 0; start < rows.length; start += END_CHUNK_KEYS) {
    const chunk = rows.slice(start, start + END_CHUNK_KEYS);
    await trx
      .updateTable('api_keys')
      .set({ revoked_at_ms: BigInt(nowMs) })
      .where(
        'id',
        'in',
        chunk.map((row) => row.id),
      )
      .execute();
    const events = chunk.map((row) => {
      const ended = { ...row, revoked_at_ms: BigInt(nowMs) };
      return { userId: row.user_id, type: 'key.revoked' as const, data: () => view(ended), nowMs };
    });
    await emitEvents(trx, events, outbox);
  }
  // A code the member allowed and no client redeemed yet would become a connection after the removal. (No index
  // on member_id: codes live 10 minutes and are purged days later, so the table stays small.)
  await trx
    .updateTable('oauth_codes')
    .set({ expires_at_ms: BigInt(nowMs) })
    .where('user_id', '=', scopeUserId)
    .where('member_id', '=', memberId)
    .where('used_at_ms', 'is', null)
    .where('expires_at_ms', '>', BigInt(nowMs))
    .execute();
  return rows.map(madeKey);
}

/** Those that work now or in a grace, oldest first. */
async function madeByRows(trx: Kysely<Database>, scopeUserId: string, memberId: string, nowMs: number) {
  const now = BigInt(nowMs);
  return trx
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', scopeUserId)
    .where('created_by', '=', memberId)
    .where((eb) => eb.or([eb('revoked_at_ms', 'is', null), eb('revoked_at_ms', '>', now)]))
    .where((eb) => eb.or([eb('expires_at_ms', 'is', null), eb('expires_at_ms', '>', now)]))
    .orderBy('created_at_ms', 'asc')
    .orderBy('id', 'asc')
    .limit(MADE_KEYS_MAX)
    .execute();
}
