// The owner's side of held payments: approve (settle from the hold; policies are not evaluated again — the
// owner's approval is the decision), reject, and expiry of unanswered approvals. Each is a command of the
// ledger writer's batches, decided in memory by domain/money/approval-batch.ts against the payment as it stands under
// the batch's locks, so two approvals racing settle the payment once.

import type { ResolveCommand, ResolveData } from '../../domain/money/approval-batch.ts';
import { unwrap } from '../../domain/outcome.ts';
import { invalidState } from '../../errors.ts';
import { isPending } from '../../store/partial-index.ts';
import type { MoneyWriter, ServiceContext } from '../context.ts';
import { type TransactionView, transactionView } from '../wallets/transactions.ts';
import { submitCommand } from './idempotency.ts';
import type { PayoutGate } from './payments.ts';

export const EXPIRY_BATCH_MAX = 100;

/** The member answering, and the organization whose payment it is. */
export interface Approver {
  tenantId: string;
  userId: string;
  email: string;
}

export interface ApprovalService {
  approve(approver: Approver, walletId: string, transactionId: string): Promise<TransactionView>;
  reject(
    approver: Approver,
    walletId: string,
    transactionId: string,
    reason: string | null,
  ): Promise<TransactionView>;
  /** Expires pending approvals whose time has passed; returns how many. */
  expireDue(): Promise<number>;
}

/** Bounded mode (services/rail/evm.ts): payments held for the treasury owners' signatures, not for an approval. */
export interface HeldOwners {
  holds(transactionId: string): Promise<boolean>;
  decline(transactionId: string, reason: string | null): Promise<boolean>;
}

export function createApprovalService(
  ctx: ServiceContext,
  payoutGate: PayoutGate,
  owners: HeldOwners | null = null,
): ApprovalService {
  const { writer, clock } = ctx;
  const ownersHold = (approver: Approver, walletId: string, transactionId: string) =>
    heldForOwners(ctx, owners, { userId: approver.tenantId, walletId, transactionId });

  async function answer(
    kind: 'approve' | 'reject',
    approver: Approver,
    ids: { walletId: string; transactionId: string },
    reason: string | null,
    recipients: readonly string[],
  ): Promise<TransactionView> {
    const command: ResolveCommand = {
      kind,
      userId: approver.tenantId,
      member: { id: approver.userId, email: approver.email },
      ...ids,
      reason,
      idempotency: null,
      nowMs: clock.nowMs(),
    };
    const data = await resolveHeld(writer, command, recipients);
    if (data.result === 'expired')
      throw invalidState('the approval window ended; the transaction is expired');
    return transactionView(data.transaction, data.approvals);
  }

  return {
    async approve(approver, walletId, transactionId) {
      if (await ownersHold(approver, walletId, transactionId))
        throw invalidState(
          "this payment waits for the treasury owners' signatures, not for an approval: the owners sign its request (POST /api/v1/wallet/treasury/signatures) or reject it",
        );
      const held = await heldPayment(ctx, { userId: approver.tenantId, transactionId });
      if (payoutGate !== null && held !== undefined) await payoutGate(held.to_address, held.amount_micros);
      const recipients = held === undefined ? [] : [held.to_address];
      return answer('approve', approver, { walletId, transactionId }, null, recipients);
    },
    async reject(approver, walletId, transactionId, reason) {
      if (owners !== null && (await ownersHold(approver, walletId, transactionId))) {
        // The owners decline: their request ends and the hold goes back, unless they signed it first.
        if (!(await owners.decline(transactionId, reason)))
          throw invalidState('the treasury owners have signed this payment already: it is being paid');
        const row = await ctx.store.db
          .selectFrom('transactions')
          .selectAll()
          .where('id', '=', transactionId)
          .executeTakeFirstOrThrow();
        return transactionView(row);
      }
      return answer('reject', approver, { walletId, transactionId }, reason, []);
    },
    expireDue: () => expireDue(ctx),
  };
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

/** Whether this organization's pending payment waits for the treasury owners (bounded mode) rather than an approval. */
async function heldForOwners(
  ctx: ServiceContext,
  owners: HeldOwners | null,
  ids: { userId: string; walletId: string; transactionId: string },
): Promise<boolean> {
  if (owners === null) return false;
  const tx = await ctx.store.db
    .selectFrom('transactions')
    .select('status')
    .where('id', '=', ids.transactionId)
    .where('wallet_id', '=', ids.walletId)
    .where('user_id', '=', ids.userId)
    .executeTakeFirst();
  return tx?.status === 'pending' && (await owners.holds(ids.transactionId));
}

/** Runs one answer as a command of the writer's batches (domain/money/approval-batch.ts decides it). */
async function resolveHeld(
  writer: MoneyWriter,
  command: ResolveCommand,
  recipients: readonly string[],
): Promise<ResolveData> {
  // The payer and, for an approval, a recipient that is a wallet here: locked in the batch's one ordered
  // statement, so an answer never waits on a row in the opposite order to another batch (deadlock-free).
  const locks = { wallets: [command.walletId], addresses: recipients };
  const result = await submitCommand(writer, command, locks);
  return unwrap(result.outcome);
}

/** Expires pending approvals whose time has passed (at most EXPIRY_BATCH_MAX a round); returns how many. */
async function expireDue(ctx: ServiceContext): Promise<number> {
  const nowMs = ctx.clock.nowMs();
  const due = await ctx.store.db
    .selectFrom('transactions')
    .select(['id', 'wallet_id'])
    .where(isPending)
    .where('expires_at_ms', '<=', BigInt(nowMs))
    .orderBy('expires_at_ms', 'asc')
    .limit(EXPIRY_BATCH_MAX)
    .execute();
  // Submitted together: the writer decides them in as few batches as their wallets allow.
  const results = await Promise.all(
    due.map((item) =>
      resolveHeld(
        ctx.writer,
        {
          kind: 'expire',
          userId: null,
          member: null,
          walletId: item.wallet_id,
          transactionId: item.id,
          reason: null,
          idempotency: null,
          nowMs,
        },
        [],
      ),
    ),
  );
  return results.filter((data) => data.result === 'done').length;
}
