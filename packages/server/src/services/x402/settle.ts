// How a paid request ends, judged by the chain, never by the seller's word: `completed` once the use of its
// authorization is in a block with enough confirmations — for EIP-3009 the token's AuthorizationUsed event for the
// treasury and the nonce, for a Permit2 witness transfer (x402 `upto`) the USDC transfer to the payee in the block
// that spent the nonce (chain/permit2.ts); `failed` with the money back in the wallet once a block past validBefore
// (Permit2's deadline) shows the authorization unused (no later block can use it). A metered payment completes
// for what the chain moved, and the rest of its maximum goes back to the wallet in the same database transaction;
// one the seller said it settled for 0 (nothing moves on chain) completes for 0 once its deadline has passed
// unused. An approved payment nobody fetched within a day is given back. Each ending runs under the wallet's lock
// and re-reads the row, so two instances (or the duty and a request) end a payment once. The duty runs each
// CHAIN_POLL_INTERVAL_MS beside the deposit watcher and the sender.
import type { Kysely } from 'kysely';
import { type Log, parseAbi } from 'viem';
import { findPermit2Use, permit2NonceUsed } from '../../chain/permit2.ts';
import { authorizationUsedOnChain } from '../../chain/token.ts';
import { accountIds } from '../../domain/money/accounts.ts';
import { isSignedState } from '../../domain/money/batch-state.ts';
import { assert } from '../../errors.ts';
import { postTransfer } from '../../ledger/ledger.ts';
import { methodOf } from '../../payments/registry.ts';
import type { Database, X402State } from '../../store/schema.ts';
import { finishChainPayment } from '../rail/rail-books.ts';
import { settleForLess } from '../wallets/transactions.ts';
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
        eb('state', 'in', ['signed', 'permit_signed']),
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
  if (!isSignedState(row.state) || row.nonce === null) return 'processing';
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
    settledMicros: use.amountMicros,
    note: `settled on chain in block ${use.blockNumber}`,
  }))
    ? 'completed'
    : 'processing';
}

interface Use {
  txHash: string;
  blockNumber: bigint;
  /** What moved to the payee: the amount itself for EIP-3009, up to the maximum for Permit2. */
  amountMicros: bigint;
}

/** The transaction that used the authorization, as the chain shows its kind of authorization. */
async function findUse(deps: X402Deps, row: X402Row, hint: string | null): Promise<Use | null> {
  if (row.authorization === 'permit2') {
    const payment = {
      usdcAddress: deps.rail.config.usdcAddress,
      owner: deps.rail.keys.treasury.address,
      payTo: row.pay_to,
      nonce: row.nonce!,
    };
    return findPermit2Use(deps.rail.client, payment, hint);
  }
  const use = await findEip3009Use(deps, row, hint);
  return use === null ? null : { ...use, amountMicros: row.amount_micros };
}

/** Whether the authorization is used as of `blockNumber`. */
function usedAsOf(deps: X402Deps, row: X402Row, blockNumber: bigint): Promise<boolean> {
  const { client, config, keys } = deps.rail;
  if (row.authorization === 'permit2')
    return permit2NonceUsed(client, keys.treasury.address, row.nonce!, blockNumber);
  return authorizationUsedOnChain(client, config.usdcAddress, keys.treasury.address, row.nonce!, blockNumber);
}

/** EIP-3009: the seller's hint if its receipt shows the authorization used, else the token's logs. */
async function findEip3009Use(
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

/**
 * A block past validBefore that shows the authorization unused: it can never be used, the money comes back — all
 * of it, and the payment fails; or, for a metered payment the seller said it settled for 0, it completes for 0.
 */
async function expireIfUnused(deps: X402Deps, row: X402Row): Promise<boolean> {
  const block = await deps.rail.client.getBlock({ blockTag: 'latest' });
  if (row.valid_before_s === null || block.timestamp <= row.valid_before_s) return false;
  if (await usedAsOf(deps, row, block.number)) return false;
  if (await settledNothing(deps, row))
    return endRow(deps, row, {
      state: 'settled',
      txHash: null,
      settledMicros: 0n,
      note: 'the seller settled nothing and the authorization expired unused; the whole amount is back in the wallet',
    });
  return giveBack(deps, row, 'expired', 'the authorization expired unused');
}

/** A metered payment whose seller answered that it settled 0 (its receipt, as the payment method reads it). */
async function settledNothing(deps: X402Deps, row: X402Row): Promise<boolean> {
  const method = methodOf(row.method);
  if (!method.metered) return false;
  const tx = await deps.ctx.store.db
    .selectFrom('transactions')
    .select('receipt')
    .where('id', '=', row.transaction_id)
    .executeTakeFirstOrThrow();
  if (tx.receipt === null) return false;
  const receipt = tx.receipt;
  // The receipt is kept as the header it came in; the method reads it from whichever header it expects.
  const answer = { header: () => receipt, headerValues: () => [receipt], bodyText: null };
  return method.settlementIn(answer).settledMicros === 0n;
}

async function giveBack(deps: X402Deps, row: X402Row, state: X402State, why: string): Promise<boolean> {
  return endRow(deps, row, {
    state,
    txHash: null,
    settledMicros: null,
    note: `${why}; the amount is back in the wallet`,
  });
}

/** How a row ends: settled (for what the chain moved) completes the payment, anything else refunds it. */
interface Ending {
  state: X402State;
  txHash: string | null;
  /** Settled: what moved to the payee (at most the row's amount); null otherwise. */
  settledMicros: bigint | null;
  note: string;
}

/** Ends a row once, under the wallet's lock: settled completes the payment, anything else refunds it. */
async function endRow(deps: X402Deps, row: X402Row, ending: Ending): Promise<boolean> {
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
        .set({
          state: ending.state,
          settle_tx_hash: ending.txHash,
          settled_micros: ending.settledMicros,
          updated_at_ms: BigInt(nowMs),
        })
        .where('transaction_id', '=', row.transaction_id)
        .execute();
      await finishTransaction(trx, row, ending, nowMs);
      return true;
    },
    { wallets: [row.wallet_id] },
  );
}

async function finishTransaction(
  trx: Kysely<Database>,
  row: X402Row,
  ending: Ending,
  nowMs: number,
): Promise<void> {
  const payment = {
    transactionId: row.transaction_id,
    walletId: row.wallet_id,
    amountMicros: row.amount_micros,
  };
  const { txHash, note } = ending;
  if (ending.state === 'settled' && ending.settledMicros !== null) {
    if (ending.settledMicros < row.amount_micros) await returnRest(trx, row, ending.settledMicros, nowMs);
    return finishChainPayment(trx, payment, { kind: 'completed', txHash, note }, nowMs);
  }
  return finishChainPayment(
    trx,
    payment,
    { kind: 'failed', txHash: null, note, refundKind: 'x402_refund' },
    nowMs,
  );
}

/**
 * A metered payment settled for less than its maximum: the rest moves back from the rail's account to the wallet
 * (one balanced ledger transfer), and the payment's amount becomes what was paid.
 */
async function returnRest(
  trx: Kysely<Database>,
  row: X402Row,
  settledMicros: bigint,
  nowMs: number,
): Promise<void> {
  assert(settledMicros >= 0n && settledMicros < row.amount_micros, 'a settlement is at most its maximum');
  const restMicros = row.amount_micros - settledMicros;
  await postTransfer(trx, {
    kind: 'x402_upto_return',
    referenceId: row.transaction_id,
    nowMs,
    legs: [
      { accountId: accountIds.external('evm'), amountMicros: -restMicros },
      { accountId: accountIds.available(row.wallet_id), amountMicros: restMicros },
    ],
  });
  const tx = await trx
    .selectFrom('transactions')
    .select(['id', 'wallet_id', 'type', 'status', 'amount_micros', 'created_at_ms'])
    .where('id', '=', row.transaction_id)
    .executeTakeFirstOrThrow();
  await settleForLess(trx, tx, settledMicros);
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
