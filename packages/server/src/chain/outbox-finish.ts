// How an outbox row ends, in the ledger writer's transaction (under the paying wallet's lock): a confirmed
// payout completes its payment with the mined hash; a payout that reverted, or that could not be sent, fails and
// its money goes back to the wallet; a sweep that failed gives its deposits back to the sweeper; an approval
// moves no money (a failed one is queued again by the next payment that needs it). Each step
// re-reads the row first, so two instances (or a retried round) finish a row once.
import type { Kysely, Selectable } from 'kysely';
import type { ChainOutboxTable, Database } from '../store/schema.ts';
import type { RailBooks, RailContext } from './books.ts';

export type OutboxRow = Selectable<ChainOutboxTable>;

export type Ending =
  | { kind: 'completed'; txHash: string; blockNumber: bigint }
  | { kind: 'failed'; reason: string; txHash: string | null; blockNumber: bigint | null };

/** Finishes a row once; false when it was already finished (by another instance or an earlier round). */
export async function finishOutboxRow(ctx: RailContext, row: OutboxRow, given: Ending): Promise<boolean> {
  const nowMs = ctx.clock.nowMs();
  // A reason can quote the chain's revert data (an EntryPoint's FailedOp carries raw bytes): PostgreSQL refuses a
  // NUL in text, so control characters never reach the database, its notes or webhooks.
  const ending: Ending = given.kind === 'failed' ? { ...given, reason: printable(given.reason) } : given;
  return ctx.writer.run(
    async (trx) => {
      const current = await trx
        .selectFrom('chain_outbox')
        .select('status')
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow();
      if (current.status === 'completed' || current.status === 'failed') return false;
      await trx
        .updateTable('chain_outbox')
        .set({
          status: ending.kind,
          mined_tx_hash: ending.txHash,
          mined_block: ending.blockNumber,
          last_error: ending.kind === 'failed' ? ending.reason : null,
          updated_at_ms: BigInt(nowMs),
        })
        .where('id', '=', row.id)
        .execute();
      // A payment's row (a payout, or one the owners' account made for a withdrawal) ends its payment.
      if (row.transaction_id !== null && (row.kind === 'payout' || row.kind === 'owners_op'))
        await finishPayment(trx, ctx.books, row, ending, nowMs);
      // A payment the owners were asked to sign ends with its request (signed and sent, or never signed).
      if (row.kind === 'owners_op' || row.status === 'awaiting_signatures') {
        await trx
          .updateTable('treasury_signature_requests')
          .set({ status: ending.kind, updated_at_ms: BigInt(nowMs) })
          .where('outbox_id', '=', row.id)
          .execute();
        if (row.kind === 'owners_op') await finishHeldPayment(trx, ctx.books, row, ending, nowMs);
      } else if (row.kind === 'sweep' && ending.kind === 'failed') {
        await trx
          .updateTable('chain_deposits')
          .set({ sweep_id: null })
          .where('sweep_id', '=', row.id)
          .execute();
      }
      return true;
    },
    // A refill moves money between the service's own addresses: no wallet, no ledger entry.
    { wallets: row.wallet_id === null ? [] : [row.wallet_id] },
  );
}

/**
 * An agent's payment held while the owners signed (the row's request names it; the row itself owes nothing: the
 * money is in the wallet's hold) ends with the owners' operation: paid, or its hold back in the wallet.
 */
async function finishHeldPayment(
  trx: Kysely<Database>,
  books: RailBooks,
  row: OutboxRow,
  ending: Ending,
  nowMs: number,
) {
  if (row.transaction_id !== null || row.wallet_id === null) return;
  const request = await trx
    .selectFrom('treasury_signature_requests')
    .select(['transaction_id'])
    .where('outbox_id', '=', row.id)
    .executeTakeFirst();
  if (request?.transaction_id == null) return;
  const payment = {
    transactionId: request.transaction_id,
    walletId: row.wallet_id,
    amountMicros: row.amount_micros,
  };
  const held =
    ending.kind === 'completed'
      ? ({
          kind: 'paid',
          txHash: ending.txHash,
          note: `the owners' transfer confirmed on chain in block ${ending.blockNumber}`,
        } as const)
      : ({
          kind: 'released',
          status: 'failed',
          note: `the owners' transfer failed (${ending.reason}); the amount is back in the wallet`,
        } as const);
  await books.finishHeldPayment(trx, payment, held, nowMs);
}

async function finishPayment(
  trx: Kysely<Database>,
  books: RailBooks,
  row: OutboxRow,
  ending: Ending,
  nowMs: number,
) {
  const payment = {
    transactionId: row.transaction_id!,
    walletId: row.wallet_id!,
    amountMicros: row.amount_micros,
  };
  if (ending.kind === 'completed') {
    const note = `confirmed on chain in block ${ending.blockNumber}`;
    await books.finishChainPayment(trx, payment, { kind: 'completed', txHash: ending.txHash, note }, nowMs);
    return;
  }
  const note = `${ending.reason}; the amount is back in the wallet`;
  await books.finishChainPayment(
    trx,
    payment,
    { kind: 'failed', txHash: ending.txHash, note, refundKind: 'payout_refund' },
    nowMs,
  );
}

/** Stores a signed transaction before it is broadcast: from here a crash resumes by rebroadcasting this very one. */
export async function recordSigned(
  trx: Kysely<Database>,
  row: OutboxRow,
  signed: {
    nonce: bigint;
    rawTx: string;
    hashes: string[];
    maxFeePerGas: bigint;
    maxPriorityFeePerGas: bigint;
  },
  nowMs: number,
): Promise<void> {
  const updated = await trx
    .updateTable('chain_outbox')
    .set({
      status: 'sent',
      nonce: signed.nonce,
      raw_tx: signed.rawTx,
      tx_hashes_json: JSON.stringify(signed.hashes),
      max_fee_per_gas: String(signed.maxFeePerGas),
      max_priority_fee_per_gas: String(signed.maxPriorityFeePerGas),
      attempts: row.attempts + 1n,
      sent_at_ms: BigInt(nowMs),
      updated_at_ms: BigInt(nowMs),
    })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .where('attempts', '=', row.attempts)
    .executeTakeFirst();
  if (updated.numUpdatedRows !== 1n)
    throw new Error(`outbox row ${row.id} changed while it was being signed`);
  if (row.transaction_id !== null) {
    const latest = signed.hashes[signed.hashes.length - 1]!;
    await trx
      .updateTable('transactions')
      .set({ tx_hash: latest })
      .where('id', '=', row.transaction_id)
      .execute();
  }
}

/** Pure: the text without control characters (each run of them a single space). */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
