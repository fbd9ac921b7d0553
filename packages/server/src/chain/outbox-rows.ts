// Rows of chain_outbox: every transaction the treasury will send. A payout row is written in the same database
// transaction as the debit it carries out (money-batch.ts, for payments and approvals alike), so a payment
// is never `processing` without something that will send it, and nothing is sent that was not debited.
import type { Insertable } from 'kysely';
import type { PayoutSpec } from '../domain/money/batch-state.ts';
import type { ChainOutboxTable } from '../store/schema.ts';

export function payoutRow(payout: PayoutSpec, fromAddress: string, id: string): Insertable<ChainOutboxTable> {
  const nowMs = BigInt(payout.nowMs);
  return {
    id,
    kind: 'payout',
    transaction_id: payout.transactionId,
    wallet_id: payout.walletId,
    from_address: fromAddress,
    to_address: payout.toAddress,
    amount_micros: payout.amountMicros,
    // A payout the owners must sign waits; the sender takes only queued rows.
    status: payout.awaitingOwners === true ? 'awaiting_signatures' : 'queued',
    tx_hashes_json: '[]',
    attempts: 0n,
    created_at_ms: nowMs,
    updated_at_ms: nowMs,
  };
}
