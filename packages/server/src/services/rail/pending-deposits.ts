// Deposits the chain shows but that are not yet CONFIRMATIONS deep, with how deep they are now: what a person
// watching a transfer arrive wants to see. Nothing here is money yet; these rows are replaced every watcher round.

import type { ChainClient } from '../../chain/client.ts';
import { isoFromMs } from '../../clock.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import { formatMicros } from '../../domain/money.ts';
import type { Store } from '../../store/db.ts';
import { type Page, pageOffset } from '../context.ts';

export interface PendingDepositView {
  txHash: string;
  logIndex: number;
  walletId: string;
  address: string;
  amount: string;
  currency: 'USDC';
  blockNumber: string;
  confirmations: number;
  confirmationsRequired: number;
  seenAt: string;
}

export async function pendingDeposits(
  store: Store,
  client: ChainClient,
  confirmationsRequired: number,
  query: { userId: string; page: Page },
): Promise<{ items: PendingDepositView[]; total: number }> {
  const base = store.db
    .selectFrom('chain_deposits as d')
    .innerJoin('wallets as w', 'w.id', 'd.wallet_id')
    .where('w.user_id', '=', query.userId)
    .where('d.status', '=', 'pending');
  const [rows, count, head] = await Promise.all([
    base
      .selectAll('d')
      .orderBy('d.block_number', 'desc')
      .orderBy('d.log_index', 'desc')
      .limit(query.page.limit)
      .offset(pageOffset(query.page))
      .execute(),
    base.select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow(),
    client.getBlockNumber({ cacheTime: 0 }),
  ]);
  const items = rows.map((r) => ({
    txHash: r.tx_hash,
    logIndex: Number(r.log_index),
    walletId: r.wallet_id,
    address: toChecksumAddress(r.to_address),
    amount: formatMicros(r.amount_micros),
    currency: 'USDC' as const,
    blockNumber: String(r.block_number),
    confirmations: head >= r.block_number ? Number(head - r.block_number + 1n) : 0,
    confirmationsRequired,
    seenAt: isoFromMs(r.created_at_ms),
  }));
  return { items, total: Number(count.n) };
}
