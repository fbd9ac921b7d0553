// Answers to held payments (approve, reject, expire): decided by domain/money/approval-batch.ts against the
// payment as it stands under its wallet's lock. Here: the payments they answer (read before deciding), what they
// name for the batch's load, their writes (members' approvals, each payment's new status with its audit event,
// approved x402 payments) and their events (notices about existing payments).
import type { Kysely } from 'kysely';
import type { ResolveCommand } from '../../../domain/money/approval-batch.ts';
import type { ApprovalMark } from '../../../domain/money/approvals.ts';
import type { BatchEffects, HeldRow } from '../../../domain/money/batch-state.ts';
import type { Database } from '../../../store/schema.ts';
import { insertRows, type WriteStep } from '../../../store/write-plan.ts';
import { approvalRow, approvalsOf, eventRow, transactionView } from '../../wallets/transactions.ts';
import type { NewEvent } from '../../webhooks/webhook-events.ts';
import type { HeldRows, Named, StepContext } from './module.ts';

/**
 * The payments the batch's answers name, and their approvals so far: read after the wallets are locked, so an
 * approval on another instance is either counted here or waits for this batch.
 */
export async function loadHeld(trx: Kysely<Database>, transactionIds: readonly string[]) {
  const held = new Map<string, HeldRow>();
  const approvals = new Map<string, ApprovalMark[]>();
  if (transactionIds.length === 0) return { held, approvals };
  const rows = await trx.selectFrom('transactions').selectAll().where('id', 'in', transactionIds).execute();
  for (const row of rows) held.set(row.id, row);
  for (const [id, marks] of await approvalsOf(trx, transactionIds)) approvals.set(id, marks);
  return { held, approvals };
}

/** The payer's wallet; an approval may also credit a wallet of this service (an x402 seller is paid on chain). */
export function nameResolve(command: ResolveCommand, named: Named, held: HeldRows): void {
  named.agentIds.add(command.walletId);
  const row = held.get(command.transactionId);
  if (command.kind === 'approve' && row?.to_address && row.resource === null)
    named.addresses.add(row.to_address);
}

/** Members' approvals to store (require_approvals): one insert. */
export function approvalSteps(effects: BatchEffects, { dialect }: StepContext): WriteStep[] {
  if (effects.approvals.length === 0) return [];
  const rows = effects.approvals.map(approvalRow);
  return [{ what: 'transaction_approvals', query: insertRows(dialect, 'transaction_approvals', rows) }];
}

/**
 * Approvals, rejections and expiries: each payment's row as it ends the batch, one audit event per transition,
 * and approved x402 payments' rows. Rare next to payments, so one update per changed payment.
 */
export function transitionSteps(effects: BatchEffects, { trx, dialect }: StepContext): WriteStep[] {
  if (effects.transitions.length === 0) return [];
  const last = new Map(effects.transitions.map((t) => [t.after.id, t.after]));
  const steps: WriteStep[] = [...last.values()].map((row) => ({
    what: `transition of ${row.id}`,
    query: trx
      .updateTable('transactions')
      .set({
        status: row.status,
        rail: row.rail,
        rejection_reason: row.rejection_reason,
        updated_at_ms: row.updated_at_ms,
      })
      .where('id', '=', row.id)
      .compile(),
  }));
  const events = effects.transitions.map((t) =>
    eventRow(t.after.id, t.after.status, t.actor, t.note, Number(t.after.updated_at_ms)),
  );
  steps.push({ what: 'transition events', query: insertRows(dialect, 'transaction_events', events) });
  for (const { transactionId, nowMs } of effects.x402Approved) {
    const query = trx
      .updateTable('x402_payments')
      .set({ state: 'approved', updated_at_ms: BigInt(nowMs) })
      .where('transaction_id', '=', transactionId)
      .where('state', '=', 'awaiting_approval')
      .compile();
    steps.push({ what: `x402 approval of ${transactionId}`, query });
  }
  return steps;
}

/** Webhook events about existing payments (approved, rejected, expired, an approval recorded). */
export function noticeEvents(effects: BatchEffects): NewEvent[] {
  return effects.notices.map((notice) => ({
    userId: notice.row.user_id,
    type: notice.type,
    data: () => transactionView(notice.row, notice.approvals),
    nowMs: Number(notice.row.updated_at_ms),
  }));
}
