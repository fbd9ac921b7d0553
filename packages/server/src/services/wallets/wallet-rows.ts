// Reading and locking wallet rows: ownership checks (another user's wallet is NOT_FOUND, never 403), the
// master wallet of a user, a wallet by address, and the row lock every debit of a wallet is taken under.
import type { Kysely, Selectable } from 'kysely';
import { notFound } from '../../errors.ts';
import type { Database, WalletKind, WalletsTable } from '../../store/schema.ts';

export type WalletRow = Selectable<WalletsTable>;

/** The wallet if it exists, is of that kind and belongs to the user; another user's wallet is NOT_FOUND. */
export async function ownedWallet(
  db: Kysely<Database>,
  userId: string,
  walletId: string,
  kind: WalletKind,
): Promise<WalletRow> {
  const row = await db
    .selectFrom('wallets')
    .selectAll()
    .where('id', '=', walletId)
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  if (row === undefined) throw notFound(kind === 'agent' ? 'agent wallet' : 'wallet');
  return row;
}

export async function masterWalletOf(db: Kysely<Database>, userId: string): Promise<WalletRow> {
  const row = await db
    .selectFrom('wallets')
    .selectAll()
    .where('user_id', '=', userId)
    .where('kind', '=', 'master')
    .executeTakeFirst();
  if (row === undefined) throw notFound('wallet');
  return row;
}
