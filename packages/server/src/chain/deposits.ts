// The deposit watcher: USDC Transfer logs to the service's addresses, credited once after CONFIRMATIONS blocks.
//
// The cursor is the highest block whose deposits are credited. Each round reads the logs from cursor+1 to the
// head as the chain shows them *now*: those at least CONFIRMATIONS deep are credited, the rest replace the
// `pending` rows (what the dashboard shows with a confirmation count). A re-org shallower than CONFIRMATIONS
// therefore only ever changes pending rows: a dropped transfer disappears, a moved one is seen again. Crediting,
// the pending rows and the cursor move in one database transaction, and chain_deposits is unique by (chain, tx
// hash, log index): a crash or a second instance can repeat a round, never a credit.
import type { Kysely } from 'kysely';
import { newId } from '../domain/ids.ts';
import { BALANCE_MAX_MICROS } from '../domain/money/accounts.ts';
import type { Database } from '../store/schema.ts';
import type { RailBooks, RailContext } from './books.ts';
import type { ChainClient } from './client.ts';
import type { EvmConfig } from './config.ts';
import { depositCursorName } from './setup.ts';
import { transferEvent } from './token.ts';

/** Blocks read per round: bounds one getLogs call and one database transaction. */
export const WATCH_RANGE_BLOCKS_MAX = 500n;

export interface ChainTransfer {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  /** Lower-case addresses. */
  from: string;
  to: string;
  valueMicros: bigint;
}

export interface DepositTarget {
  walletId: string;
  userId: string;
  kind: 'master' | 'agent';
  address: string;
}

export interface DepositPlan {
  credit: Array<ChainTransfer & { target: DepositTarget }>;
  pending: Array<ChainTransfer & { target: DepositTarget }>;
  /** Transfers to a service address that cannot be credited (above the balance bound): logged, never credited. */
  refused: ChainTransfer[];
}

/** Pure: which transfers are deposits, and which of those are deep enough to credit. */
export function planDeposits(
  transfers: readonly ChainTransfer[],
  targets: ReadonlyMap<string, DepositTarget>,
  confirmedTo: bigint,
): DepositPlan {
  const plan: DepositPlan = { credit: [], pending: [], refused: [] };
  for (const transfer of transfers) {
    const target = targets.get(transfer.to);
    if (target === undefined || transfer.valueMicros === 0n) continue;
    if (transfer.valueMicros > BALANCE_MAX_MICROS) plan.refused.push(transfer);
    else if (transfer.blockNumber <= confirmedTo) plan.credit.push({ ...transfer, target });
    else plan.pending.push({ ...transfer, target });
  }
  return plan;
}

/** Pure: the block range of a round, and the highest block in it deep enough to credit. */
export function watchRange(cursor: bigint, head: bigint, confirmations: number) {
  const fromBlock = cursor + 1n;
  const toBlock =
    head - fromBlock + 1n > WATCH_RANGE_BLOCKS_MAX ? fromBlock + WATCH_RANGE_BLOCKS_MAX - 1n : head;
  const deepest = head - BigInt(confirmations) + 1n;
  return { fromBlock, toBlock, confirmedTo: deepest < toBlock ? deepest : toBlock };
}

export interface WatcherDeps {
  ctx: RailContext;
  client: ChainClient;
  config: EvmConfig;
  warn: (message: string) => void;
}

/** One round of the watcher; returns what it credited and what is pending. */
export async function watchDepositsOnce(deps: WatcherDeps): Promise<{ credited: number; pending: number }> {
  const { ctx, client, config } = deps;
  const cursorName = depositCursorName(config.chainId);
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const cursor = await readCursor(ctx.store.db, cursorName);
  if (cursor >= head) return { credited: 0, pending: 0 };
  const range = watchRange(cursor, head, config.confirmations);
  const transfers = await fetchTransfers(client, config.usdcAddress, range.fromBlock, range.toBlock);
  const targets = await depositTargets(ctx.store.db, transfers);
  const plan = planDeposits(transfers, targets, range.confirmedTo);
  for (const refused of plan.refused) {
    deps.warn(`deposit ${refused.txHash}:${refused.logIndex} is above the balance bound and is not credited`);
  }
  // bigint: Math.max does not apply.
  let newCursor = cursor;
  if (range.confirmedTo > cursor) newCursor = range.confirmedTo;
  const credited = await ctx.writer.run(
    (trx) =>
      applyPlan(trx, ctx.books, plan, {
        cursorName,
        newCursor,
        chainId: config.chainId,
        nowMs: ctx.clock.nowMs(),
      }),
    { wallets: [...new Set(plan.credit.map((c) => c.target.walletId))] },
  );
  return { credited, pending: plan.pending.length };
}

/** The stored cursor, fixed by fixDepositStart when the rail opened (before the first address existed). */
async function readCursor(db: Kysely<Database>, name: string): Promise<bigint> {
  const row = await db
    .selectFrom('chain_cursors')
    .select('block_number')
    .where('name', '=', name)
    .executeTakeFirst();
  if (row === undefined)
    throw new Error(`deposit cursor ${name} is missing: the rail fixes it when it opens`);
  return BigInt(row.block_number);
}

export async function fetchTransfers(
  client: ChainClient,
  token: string,
  fromBlock: bigint,
  toBlock: bigint,
  args?: { from?: `0x${string}`; to?: `0x${string}` | `0x${string}`[] },
): Promise<ChainTransfer[]> {
  const logs = await client.getLogs({
    address: token as `0x${string}`,
    event: transferEvent,
    ...(args === undefined ? {} : { args }),
    fromBlock,
    toBlock,
  });
  return logs
    .filter((log) => !log.removed && log.transactionHash !== null && log.blockNumber !== null)
    .map((log) => ({
      txHash: log.transactionHash!.toLowerCase(),
      logIndex: log.logIndex!,
      blockNumber: log.blockNumber!,
      from: log.args.from!.toLowerCase(),
      to: log.args.to!.toLowerCase(),
      valueMicros: log.args.value!,
    }));
}

/** The wallets among the transfers' recipients, in one query. */
async function depositTargets(db: Kysely<Database>, transfers: readonly ChainTransfer[]) {
  const recipients = [...new Set(transfers.map((t) => t.to))];
  const targets = new Map<string, DepositTarget>();
  if (recipients.length === 0) return targets;
  const rows = await db
    .selectFrom('wallets')
    .select(['id', 'user_id', 'kind', 'address'])
    .where('address', 'in', recipients)
    .execute();
  for (const r of rows)
    targets.set(r.address, { walletId: r.id, userId: r.user_id, kind: r.kind, address: r.address });
  return targets;
}

async function applyPlan(
  trx: Kysely<Database>,
  books: RailBooks,
  plan: DepositPlan,
  round: { cursorName: string; newCursor: bigint; chainId: number; nowMs: number },
): Promise<number> {
  await trx.deleteFrom('chain_deposits').where('status', '=', 'pending').execute();
  let credited = 0;
  for (const item of plan.credit) {
    if (await creditDeposit(trx, books, item, round)) credited += 1;
  }
  if (plan.pending.length > 0) {
    await trx
      .insertInto('chain_deposits')
      .values(plan.pending.map((item) => chainDepositRow(item, 'pending', round)))
      .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
      .execute();
  }
  await trx
    .updateTable('chain_cursors')
    .set({ block_number: round.newCursor })
    .where('name', '=', round.cursorName)
    .execute();
  return credited;
}

function chainDepositRow(
  item: ChainTransfer & { target: DepositTarget },
  status: 'pending' | 'credited',
  round: { chainId: number; nowMs: number },
) {
  return {
    id: newId('cdp'),
    chain_id: BigInt(round.chainId),
    tx_hash: item.txHash,
    log_index: BigInt(item.logIndex),
    block_number: item.blockNumber,
    wallet_id: item.target.walletId,
    from_address: item.from,
    to_address: item.to,
    amount_micros: item.valueMicros,
    status,
    deposit_id: null,
    sweep_id: null,
    created_at_ms: BigInt(round.nowMs),
    updated_at_ms: BigInt(round.nowMs),
  };
}

/** Credits one transfer unless it already was (the unique row is claimed first); true when credited now. */
async function creditDeposit(
  trx: Kysely<Database>,
  books: RailBooks,
  item: ChainTransfer & { target: DepositTarget },
  round: { chainId: number; nowMs: number },
): Promise<boolean> {
  const claimed = await trx
    .insertInto('chain_deposits')
    .values(chainDepositRow(item, 'credited', round))
    .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (claimed === undefined) return false;
  const { target, valueMicros: amountMicros, txHash } = item;
  const depositId = await books.creditDeposit(trx, {
    chainDepositId: claimed.id,
    ...target,
    amountMicros,
    txHash,
    nowMs: round.nowMs,
  });
  await trx
    .updateTable('chain_deposits')
    .set({ deposit_id: depositId })
    .where('id', '=', claimed.id)
    .execute();
  return true;
}
