// The books the evm rail's workers write in (chain/books.ts): what the ledger and the services do when money
// arrives on chain or a payment that left through the rail ends. Handed to the rail when it is opened
// (services/rail/evm.ts), so the rail calls down into nothing above it.
import type { Kysely } from 'kysely';
import type {
  ChainCredit,
  ChainPayment,
  ChainPaymentEnding,
  HeldEnding,
  RailBooks,
} from '../../chain/books.ts';
import { accountIds } from '../../domain/money/accounts.ts';
import { postTransfer } from '../../ledger/ledger.ts';
import type { Database } from '../../store/schema.ts';
import { recordDeposit } from '../money/deposits.ts';
import { insertTransaction, setTransactionStatus, withdrawalView } from '../wallets/transactions.ts';
import { emitEvent, emitTransactionEvent } from '../webhooks/webhook-events.ts';

export const railBooks: RailBooks = { creditDeposit, finishChainPayment, finishHeldPayment };

/** A deposit seen on chain: the rail's account pays the wallet, recorded and reported like any deposit. */
async function creditDeposit(trx: Kysely<Database>, credit: ChainCredit): Promise<string> {
  const { chainDepositId, walletId, userId, amountMicros, nowMs, txHash } = credit;
  const ledgerTransactionId = await postTransfer(trx, {
    kind: 'deposit',
    referenceId: chainDepositId,
    nowMs,
    legs: [
      { accountId: accountIds.external('evm'), amountMicros: -amountMicros },
      { accountId: accountIds.available(walletId), amountMicros },
    ],
  });
  const common = { walletId, userId, amountMicros, nowMs, txHash };
  const deposit = await recordDeposit(trx, { ...common, rail: 'evm', ledgerTransactionId });
  await emitEvent(trx, {
    userId,
    type: 'deposit.credited',
    data: () => deposit,
    nowMs,
  });
  if (credit.kind === 'agent') await recordIncoming(trx, common, credit.address);
  return deposit.id;
}

/** An agent wallet's history shows money that arrived on chain as an `incoming` transaction. */
async function recordIncoming(
  trx: Kysely<Database>,
  common: { walletId: string; userId: string; amountMicros: bigint; nowMs: number; txHash: string },
  address: string,
): Promise<void> {
  await insertTransaction(trx, {
    ...common,
    type: 'incoming',
    status: 'completed',
    toAddress: address,
    counterpartyWalletId: null,
    memo: null,
    reason: null,
    rail: 'evm',
    rejectionReason: null,
    violations: null,
    initiatedBy: 'chain',
    idempotencyKey: null,
    expiresAtMs: null,
    relatedTransactionId: null,
  });
}

/**
 * How a payment that left through the evm rail ends (a payout, an x402 authorization): completed with its
 * chain transaction, or failed with its money moved back from the rail's account to the wallet.
 */
export async function finishChainPayment(
  trx: Kysely<Database>,
  payment: ChainPayment,
  ending: ChainPaymentEnding,
  nowMs: number,
): Promise<void> {
  const tx = await trx
    .selectFrom('transactions')
    .select(['id', 'wallet_id', 'type', 'status', 'amount_micros', 'created_at_ms'])
    .where('id', '=', payment.transactionId)
    .executeTakeFirstOrThrow();
  if (ending.kind === 'completed') {
    await setTransactionStatus(trx, tx, {
      status: 'completed',
      actor: 'system',
      note: ending.note,
      nowMs,
      txHash: ending.txHash,
    });
    await emitChainEnding(trx, tx, 'completed', nowMs);
    return;
  }
  await postTransfer(trx, {
    kind: ending.refundKind,
    referenceId: tx.id,
    nowMs,
    legs: [
      { accountId: accountIds.external('evm'), amountMicros: -payment.amountMicros },
      { accountId: accountIds.available(payment.walletId), amountMicros: payment.amountMicros },
    ],
  });
  await setTransactionStatus(trx, tx, {
    status: 'failed',
    actor: 'system',
    note: ending.note,
    nowMs,
    txHash: ending.txHash,
  });
  await emitChainEnding(trx, tx, 'failed', nowMs);
}

/** payment.* for an agent's payment; withdrawal.* for a payment of a master wallet (the owner's withdrawal). */
async function emitChainEnding(
  trx: Kysely<Database>,
  tx: { id: string; wallet_id: string },
  ending: 'completed' | 'failed',
  nowMs: number,
): Promise<void> {
  const wallet = await trx
    .selectFrom('wallets')
    .select('kind')
    .where('id', '=', tx.wallet_id)
    .executeTakeFirstOrThrow();
  if (wallet.kind === 'agent') {
    await emitTransactionEvent(
      trx,
      tx.id,
      ending === 'completed' ? 'payment.completed' : 'payment.failed',
      nowMs,
    );
    return;
  }
  const row = await trx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', tx.id)
    .executeTakeFirstOrThrow();
  await emitEvent(trx, {
    userId: row.user_id,
    type: ending === 'completed' ? 'withdrawal.completed' : 'withdrawal.failed',
    data: () => withdrawalView(row),
    nowMs,
  });
}

/**
 * An agent's payment held while the owners signed (bounded mode) ends like an approved or a released one: paid
 * from the hold (a plain payment is `completed` by the owners' transfer itself; an x402 or MPP payment is
 * debited and approved for signing, the owners having topped up the float, so the agent's retry with the same
 * idempotency key pays), or its hold back in the wallet. Nothing happens to a payment no longer pending.
 */
async function finishHeldPayment(
  trx: Kysely<Database>,
  payment: ChainPayment,
  ending: HeldEnding,
  nowMs: number,
): Promise<void> {
  const tx = await trx
    .selectFrom('transactions')
    .select(['id', 'wallet_id', 'type', 'status', 'amount_micros', 'created_at_ms', 'resource'])
    .where('id', '=', payment.transactionId)
    .executeTakeFirstOrThrow();
  if (tx.status !== 'pending') return;
  const hold = accountIds.hold(payment.walletId);
  if (ending.kind === 'released') {
    await postTransfer(trx, {
      kind: 'release',
      referenceId: tx.id,
      nowMs,
      legs: [
        { accountId: hold, amountMicros: -payment.amountMicros },
        { accountId: accountIds.available(payment.walletId), amountMicros: payment.amountMicros },
      ],
    });
    const rejection = ending.status === 'expired' ? {} : { rejectionReason: ending.note };
    await setTransactionStatus(trx, tx, {
      status: ending.status,
      actor: 'system',
      note: ending.note,
      nowMs,
      ...rejection,
    });
    await emitTransactionEvent(trx, tx.id, RELEASED_EVENTS[ending.status], nowMs);
    return;
  }
  await postTransfer(trx, {
    kind: 'payment_external',
    referenceId: tx.id,
    nowMs,
    legs: [
      { accountId: hold, amountMicros: -payment.amountMicros },
      { accountId: accountIds.external('evm'), amountMicros: payment.amountMicros },
    ],
  });
  if (tx.resource !== null) {
    await trx
      .updateTable('x402_payments')
      .set({ state: 'approved', updated_at_ms: BigInt(nowMs) })
      .where('transaction_id', '=', tx.id)
      .where('state', '=', 'awaiting_approval')
      .execute();
    const note = `${ending.note}; paid when the agent asks again with the same idempotency key`;
    await setTransactionStatus(trx, tx, { status: 'processing', actor: 'system', note, nowMs });
    return;
  }
  await setTransactionStatus(trx, tx, {
    status: 'completed',
    actor: 'system',
    note: ending.note,
    nowMs,
    txHash: ending.txHash,
  });
  await emitChainEnding(trx, tx, 'completed', nowMs);
}

const RELEASED_EVENTS = {
  expired: 'approval.expired',
  rejected: 'approval.rejected',
  failed: 'payment.failed',
} as const;
