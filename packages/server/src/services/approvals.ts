// The owner's side of held payments: approve (settle from the hold; policies are not evaluated again — the
// owner's approval is the decision), reject, and expiry of unanswered approvals. Each runs under the wallet's
// row lock and re-reads the status inside it, so two approvals racing settle the payment once.
import type { Kysely, Selectable } from 'kysely';
import { invalidState, notFound } from '../errors.ts';
import { accountIds, postTransfer } from '../ledger/ledger.ts';
import type { Database, TransactionsTable } from '../store/schema.ts';
import type { ServiceContext } from './context.ts';
import type { PayoutGate } from './payments.ts';
import { type ExternalRail, settle } from './settlement.ts';
import { setTransactionStatus, type TransactionView, transactionView } from './transactions.ts';
import { lockWallet, ownedWallet, type WalletRow } from './wallet-rows.ts';
import { emitTransactionEvent } from './webhook-events.ts';

type TransactionRow = Selectable<TransactionsTable>;

export const EXPIRY_BATCH_MAX = 100;

export interface ApprovalService {
  approve(userId: string, walletId: string, transactionId: string): Promise<TransactionView>;
  reject(
    userId: string,
    walletId: string,
    transactionId: string,
    reason: string | null,
  ): Promise<TransactionView>;
  /** Expires pending approvals whose time has passed; returns how many. */
  expireDue(): Promise<number>;
}

type Decision = { kind: 'done'; row: TransactionRow } | { kind: 'expired' };

export function createApprovalService(
  ctx: ServiceContext,
  rail: ExternalRail,
  payoutGate: PayoutGate,
): ApprovalService {
  const { store, writer, clock } = ctx;

  async function decide(
    userId: string,
    walletId: string,
    transactionId: string,
    act: (trx: Kysely<Database>, wallet: WalletRow, tx: TransactionRow, nowMs: number) => Promise<void>,
    recipients: readonly string[] = [],
  ): Promise<TransactionView> {
    const nowMs = clock.nowMs();
    const result = await writer.run(
      async (trx): Promise<Decision> => {
        const wallet = await ownedWallet(trx, userId, walletId, 'agent');
        await lockWallet(trx, wallet.id);
        const tx = await transactionOf(trx, wallet.id, transactionId);
        if (tx.status !== 'pending') throw invalidState(`the transaction is ${tx.status}, not pending`);
        if (tx.expires_at_ms !== null && tx.expires_at_ms <= BigInt(nowMs)) {
          await release(trx, wallet, tx, {
            status: 'expired',
            actor: 'system',
            note: 'approval window ended',
            nowMs,
          });
          return { kind: 'expired' };
        }
        await act(trx, wallet, tx, nowMs);
        return { kind: 'done', row: await transactionOf(trx, wallet.id, transactionId) };
      },
      // An approval may credit a wallet of this service: it is locked with the payer in the writer's one
      // ordered statement, so an approval never waits on a row in the opposite order to a batch (deadlock-free).
      { wallets: [walletId], addresses: recipients },
    );
    if (result.kind === 'expired')
      throw invalidState('the approval window ended; the transaction is expired');
    return transactionView(result.row);
  }

  async function approveHeld(trx: Kysely<Database>, wallet: WalletRow, tx: TransactionRow, nowMs: number) {
    if (tx.resource !== null) return approveX402(trx, wallet, tx, nowMs);
    const actor = `user:${wallet.user_id}`;
    const processing = { ...tx, status: 'processing' as const };
    await setTransactionStatus(trx, tx, {
      status: 'processing',
      actor,
      note: 'approved by the owner',
      nowMs,
    });
    const settled = await settle(trx, rail, {
      paymentId: tx.id,
      wallet,
      fromAccountId: accountIds.hold(wallet.id),
      toAddress: tx.to_address!,
      amountMicros: tx.amount_micros,
      memo: tx.memo,
      initiatedBy: actor,
      nowMs,
    });
    await emitTransactionEvent(trx, tx.id, 'approval.approved', nowMs);
    if (settled.status === 'failed') {
      await release(trx, wallet, processing, {
        status: 'failed',
        actor: 'system',
        note: settled.failureReason,
        nowMs,
      });
      return;
    }
    await setTransactionStatus(trx, processing, {
      status: settled.status,
      actor: 'system',
      note: null,
      nowMs,
      rail: settled.rail,
      txHash: settled.txHash,
    });
    if (settled.status === 'completed') await emitTransactionEvent(trx, tx.id, 'payment.completed', nowMs);
  }

  async function expireDue(): Promise<number> {
    const nowMs = clock.nowMs();
    const due = await store.db
      .selectFrom('transactions')
      .select(['id', 'wallet_id'])
      .where('status', '=', 'pending')
      .where('expires_at_ms', '<=', BigInt(nowMs))
      .orderBy('expires_at_ms', 'asc')
      .limit(EXPIRY_BATCH_MAX)
      .execute();
    let expired = 0;
    for (const item of due) {
      const done = await writer.run(
        async (trx) => {
          const wallet = await lockWallet(trx, item.wallet_id);
          const tx = await transactionOf(trx, wallet.id, item.id);
          if (tx.status !== 'pending') return false; // decided meanwhile (another instance, or the owner)
          await release(trx, wallet, tx, {
            status: 'expired',
            actor: 'system',
            note: 'approval window ended',
            nowMs,
          });
          return true;
        },
        { wallets: [item.wallet_id] },
      );
      if (done) expired += 1;
    }
    return expired;
  }

  return {
    async approve(userId, walletId, transactionId) {
      const held = await heldPayment(ctx, { userId, transactionId });
      if (payoutGate !== null && held !== undefined) await payoutGate(held.to_address, held.amount_micros);
      const recipients = held === undefined ? [] : [held.to_address];
      return decide(userId, walletId, transactionId, approveHeld, recipients);
    },
    reject: (userId, walletId, transactionId, reason) =>
      decide(userId, walletId, transactionId, (trx, wallet, tx, nowMs) =>
        release(trx, wallet, tx, {
          status: 'rejected',
          actor: `user:${userId}`,
          note: reason,
          nowMs,
          rejectionReason: reason ?? 'rejected by the wallet owner',
        }),
      ),
    expireDue,
  };
}

/**
 * An approved x402 payment is debited now (held → the rail's account, `processing`) and signed when the agent
 * asks again with the same idempotency key; nothing is sent to the seller by the approval itself.
 */
async function approveX402(trx: Kysely<Database>, wallet: WalletRow, tx: TransactionRow, nowMs: number) {
  await postTransfer(trx, {
    kind: 'payment_external',
    referenceId: tx.id,
    nowMs,
    legs: [
      { accountId: accountIds.hold(wallet.id), amountMicros: -tx.amount_micros },
      { accountId: accountIds.external(tx.rail ?? 'evm'), amountMicros: tx.amount_micros },
    ],
  });
  await setTransactionStatus(trx, tx, {
    status: 'processing',
    actor: `user:${wallet.user_id}`,
    note: 'approved by the owner; paid when the agent asks again with the same idempotency key',
    nowMs,
  });
  await trx
    .updateTable('x402_payments')
    .set({ state: 'approved', updated_at_ms: BigInt(nowMs) })
    .where('transaction_id', '=', tx.id)
    .where('state', '=', 'awaiting_approval')
    .execute();
  await emitTransactionEvent(trx, tx.id, 'approval.approved', nowMs);
}

/**
 * The pending payment an approval would pay out, read before the decision: the payout gate checks the rail can
 * pay it (a 503 changes nothing), and its recipient is locked with the payer. x402 payments are paid by the
 * agent's next call, not by the approval: neither applies. The decision re-reads it under the locks.
 */
async function heldPayment(ctx: ServiceContext, ids: { userId: string; transactionId: string }) {
  const tx = await ctx.store.db
    .selectFrom('transactions')
    .select(['to_address', 'amount_micros', 'status', 'resource'])
    .where('id', '=', ids.transactionId)
    .where('user_id', '=', ids.userId)
    .executeTakeFirst();
  if (tx === undefined || tx.status !== 'pending' || tx.to_address === null || tx.resource !== null) return;
  return { to_address: tx.to_address, amount_micros: tx.amount_micros };
}

async function transactionOf(
  trx: Kysely<Database>,
  walletId: string,
  transactionId: string,
): Promise<TransactionRow> {
  const row = await trx
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', transactionId)
    .where('wallet_id', '=', walletId)
    .where('type', '=', 'payment')
    .executeTakeFirst();
  if (row === undefined) throw notFound('transaction');
  return row;
}

/** Returns a held amount to the wallet's available balance and closes the transaction. */
async function release(
  trx: Kysely<Database>,
  wallet: WalletRow,
  tx: TransactionRow,
  change: {
    status: 'rejected' | 'expired' | 'failed';
    actor: string;
    note: string | null;
    nowMs: number;
    rejectionReason?: string;
  },
): Promise<void> {
  await postTransfer(trx, {
    kind: 'release',
    referenceId: tx.id,
    nowMs: change.nowMs,
    legs: [
      { accountId: accountIds.hold(wallet.id), amountMicros: -tx.amount_micros },
      { accountId: accountIds.available(wallet.id), amountMicros: tx.amount_micros },
    ],
  });
  await setTransactionStatus(trx, tx, {
    status: change.status,
    actor: change.actor,
    note: change.note,
    nowMs: change.nowMs,
    ...(change.rejectionReason === undefined ? {} : { rejectionReason: change.rejectionReason }),
  });
  await emitTransactionEvent(trx, tx.id, RELEASE_EVENTS[change.status], change.nowMs);
}

const RELEASE_EVENTS = {
  rejected: 'approval.rejected',
  expired: 'approval.expired',
  failed: 'payment.failed',
} as const;
