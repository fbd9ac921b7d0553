// How an x402 payment ends, judged by the chain, never by the seller's word: `completed` once the token's
// AuthorizationUsed event for the treasury and the payment's nonce is in a block with enough confirmations;
// `failed` with the money back in the wallet once a block past validBefore shows the authorization unused (no
// later block can use it). An approved payment nobody fetched within a day is given back the same way. Each
// ending runs under the wallet's lock and re-reads the row, so two instances (or the duty and a request) end a
// payment once. The duty runs each CHAIN_POLL_INTERVAL_MS beside the deposit watcher and the sender.
import type { Kysely } from 'kysely';
import { type Log, parseAbi } from 'viem';
import { authorizationUsedOnChain } from '../../chain/token.ts';
import type { Database, X402State } from '../../store/schema.ts';
import { finishChainPayment } from '../rail/rail-books.ts';
import type { X402Deps, X402Row } from './sign.ts';

const authorizationUsed = parseAbi([
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
])[0];
/** Rows looked at per round. */
const SETTLE_ROWS_MAX = 50;
/** How far back the chain is searched for an authorization's use when the seller named no transaction. */
const LOG_LOOKBACK_BLOCKS = 10_000n;
/** An approved payment the agent never fetched goes back to the wallet after this long. */
export const APPROVED_UNUSED_MS = 24 * 60 * 60 * 1000;

/** One round of the duty: ends every payment the chain has decided. Returns how many ended. */
export async function settleX402Due(deps: X402Deps): Promise<number> {
  const abandonedBeforeMs = BigInt(deps.ctx.clock.nowMs() - APPROVED_UNUSED_MS);
  // Signed payments, and approved ones nobody fetched for a day: young approved rows never take a round's slots.
  const rows = await deps.ctx.store.db
    .selectFrom('x402_payments')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('state', '=', 'signed'),
        eb.and([eb('state', '=', 'approved'), eb('updated_at_ms', '<=', abandonedBeforeMs)]),
      ]),
    )
    .orderBy('updated_at_ms', 'asc')
    .limit(SETTLE_ROWS_MAX)
    .execute();
  let ended = 0;
  for (const row of rows) {
    if (row.state === 'approved') {
      if (await giveBack(deps, row, 'abandoned', 'approved, but the agent never fetched the resource'))
        ended += 1;
      continue;
    }
    if ((await confirmX402(deps, row, row.settle_tx_hash)) === 'completed') ended += 1;
    else if (await expireIfUnused(deps, row)) ended += 1;
  }
  return ended;
}

/**
 * Completes a signed payment if its authorization is used on chain with enough confirmations; records the hash
 * (still processing) when it is used but not yet confirmed. `hint`: the transaction the seller reported.
 */
export async function confirmX402(
  deps: X402Deps,
  row: X402Row,
  hint: string | null,
): Promise<'completed' | 'processing'> {
  if (row.state !== 'signed' || row.nonce === null) return 'processing';
  const use = await findUse(deps, row, hint);
  if (use === null) return 'processing';
  const head = await deps.rail.client.getBlockNumber({ cacheTime: 0 });
  if (head - use.blockNumber + 1n < BigInt(deps.rail.config.confirmations)) {
    await noteHash(deps, row, use.txHash);
    return 'processing';
  }
  return (await endRow(deps, row, {
    state: 'settled',
    txHash: use.txHash,
    note: `settled on chain in block ${use.blockNumber}`,
  }))
    ? 'completed'
    : 'processing';
}

/** The transaction that used the authorization: the seller's hint if its receipt shows it, else the logs. */
async function findUse(
  deps: X402Deps,
  row: X402Row,
  hint: string | null,
): Promise<{ txHash: string; blockNumber: bigint } | null> {
  const args = { authorizer: deps.rail.keys.treasury.address, nonce: row.nonce as `0x${string}` };
  const address = deps.rail.config.usdcAddress as `0x${string}`;
  if (hint !== null) {
    const receipt = await deps.rail.client
      .getTransactionReceipt({ hash: hint as `0x${string}` })
      .catch(() => null);
    const shows =
      receipt?.status === 'success' && receipt.logs.some((log) => usesNonce(log, address, row.nonce!));
    if (shows) return { txHash: hint, blockNumber: receipt.blockNumber };
  }
  if (!(await authorizationUsedOnChain(deps.rail.client, address, args.authorizer, args.nonce))) return null;
  const head = await deps.rail.client.getBlockNumber({ cacheTime: 0 });
  const logs = await deps.rail.client.getLogs({
    address,
    event: authorizationUsed,
    args,
    fromBlock: head > LOG_LOOKBACK_BLOCKS ? head - LOG_LOOKBACK_BLOCKS : 0n,
    toBlock: head,
  });
  const log = logs[0];
  if (log === undefined || log.transactionHash === null || log.blockNumber === null) return null;
  return { txHash: log.transactionHash.toLowerCase(), blockNumber: log.blockNumber };
}

function usesNonce(log: Log, token: string, nonce: string): boolean {
  return (
    log.address.toLowerCase() === token.toLowerCase() &&
    log.topics[2]?.toLowerCase() === nonce.toLowerCase() &&
    log.topics.length === 3
  );
}

/** A block past validBefore that shows the authorization unused: it can never be used, the money comes back. */
async function expireIfUnused(deps: X402Deps, row: X402Row): Promise<boolean> {
  const block = await deps.rail.client.getBlock({ blockTag: 'latest' });
  if (row.valid_before_s === null || block.timestamp <= row.valid_before_s) return false;
  const { client, config, keys } = deps.rail;
  const used = await authorizationUsedOnChain(
    client,
    config.usdcAddress,
    keys.treasury.address,
    row.nonce!,
    block.number,
  );
  if (used) return false;
  return giveBack(deps, row, 'expired', 'the authorization expired unused');
}

async function giveBack(deps: X402Deps, row: X402Row, state: X402State, why: string): Promise<boolean> {
  return endRow(deps, row, { state, txHash: null, note: `${why}; the amount is back in the wallet` });
}

/** Ends a row once, under the wallet's lock: settled completes the payment, anything else refunds it. */
async function endRow(
  deps: X402Deps,
  row: X402Row,
  ending: { state: X402State; txHash: string | null; note: string },
): Promise<boolean> {
  const nowMs = deps.ctx.clock.nowMs();
  return deps.ctx.writer.run(
    async (trx) => {
      const current = await trx
        .selectFrom('x402_payments')
        .select('state')
        .where('transaction_id', '=', row.transaction_id)
        .executeTakeFirstOrThrow();
      if (current.state !== row.state) return false;
      await trx
        .updateTable('x402_payments')
        .set({ state: ending.state, settle_tx_hash: ending.txHash, updated_at_ms: BigInt(nowMs) })
        .where('transaction_id', '=', row.transaction_id)
        .execute();
      await finishTransaction(trx, row, ending, nowMs);
      return true;
    },
    { wallets: [row.wallet_id] },
  );
}

function finishTransaction(
  trx: Kysely<Database>,
  row: X402Row,
  ending: { state: X402State; txHash: string | null; note: string },
  nowMs: number,
): Promise<void> {
  const payment = {
    transactionId: row.transaction_id,
    walletId: row.wallet_id,
    amountMicros: row.amount_micros,
  };
  const { txHash, note } = ending;
  if (ending.state === 'settled' && txHash !== null)
    return finishChainPayment(trx, payment, { kind: 'completed', txHash, note }, nowMs);
  return finishChainPayment(
    trx,
    payment,
    { kind: 'failed', txHash: null, note, refundKind: 'x402_refund' },
    nowMs,
  );
}

/** The hash of a use not yet confirmed: shown on the processing payment. */
async function noteHash(deps: X402Deps, row: X402Row, txHash: string): Promise<void> {
  if (row.settle_tx_hash === txHash) return;
  await deps.ctx.writer.run(
    async (trx) => {
      await trx
        .updateTable('x402_payments')
        .set({ settle_tx_hash: txHash })
        .where('transaction_id', '=', row.transaction_id)
        .execute();
      await trx
        .updateTable('transactions')
        .set({ tx_hash: txHash })
        .where('id', '=', row.transaction_id)
        .execute();
    },
    { wallets: [row.wallet_id] },
  );
}
