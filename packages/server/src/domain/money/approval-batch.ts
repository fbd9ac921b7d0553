// The owner's answers to held payments (approve, reject) and their expiry, decided in memory against a batch's
// state like every other money command (see batch.ts). Approve settles from the hold — on the internal ledger
// when the recipient is a wallet of this service, through the rail otherwise; an x402 payment is debited and
// signed by the agent's next call. Reject and expire return the hold to the wallet. Policies are not evaluated
// again: the owner's approval is the decision. Pure: the batch writes the transitions it collects.

import { invalidState, notFound } from '../../errors.ts';
import { type Outcome, success } from '../outcome.ts';
import type { TransactionStatus } from '../records.ts';
import { accountIds } from './accounts.ts';
import { type ApprovalMark, nextApproval } from './approvals.ts';
import {
  type BatchContext,
  type BatchEffects,
  type BatchState,
  type HeldRow,
  type TransitionSpec,
  transfer,
  type WalletState,
} from './batch-state.ts';
import { payRecipient, recipientOf } from './payment-batch.ts';

export interface ResolveCommand {
  kind: 'approve' | 'reject' | 'expire';
  /** The organization answering (its resources' user id); null for expiry (the system). */
  userId: string | null;
  /** The member answering (an approval is counted per member); null for expiry. */
  member: { id: string; email: string } | null;
  walletId: string;
  transactionId: string;
  /** A rejection's reason (the owner's words), else null. */
  reason: string | null;
  idempotency: null;
  nowMs: number;
}

/**
 * `done`: answered as asked. `recorded`: an approval counted, the payment waits for more (require_approvals).
 * `expired`: the approval window had ended, so the payment was expired instead (the caller answers 409).
 * `unchanged`: an expiry found the payment already decided.
 */
export interface ResolveData {
  result: 'done' | 'recorded' | 'expired' | 'unchanged';
  transaction: HeldRow;
  /** The payment's approvals after this answer. */
  approvals: ApprovalMark[];
}

export const APPROVED_NOTE = 'approved by the owner';
export const X402_APPROVED_NOTE =
  'approved by the owner; paid when the agent asks again with the same idempotency key';
const RELEASE_EVENTS = { rejected: 'approval.rejected', expired: 'approval.expired' } as const;

export function decideResolve(
  state: BatchState,
  command: ResolveCommand,
  context: BatchContext,
  effects: BatchEffects,
): Outcome<ResolveData> {
  const wallet = state.wallets.get(command.walletId);
  const owned = command.userId === null || wallet?.userId === command.userId;
  if (wallet === undefined || wallet.kind !== 'agent' || !owned) throw notFound('wallet');
  const held = state.held.get(command.transactionId);
  if (held === undefined || held.wallet_id !== wallet.id || held.type !== 'payment')
    throw notFound('transaction');
  const approvals = state.approvals.get(held.id) ?? [];
  const windowEnded = held.expires_at_ms !== null && held.expires_at_ms <= BigInt(command.nowMs);
  if (held.status !== 'pending' || (command.kind === 'expire' && !windowEnded)) {
    if (command.kind === 'expire') return success({ result: 'unchanged', transaction: held, approvals });
    throw invalidState(`the transaction is ${held.status}, not pending`);
  }
  if (command.kind === 'expire' || windowEnded) {
    const after = release(state, context, effects, { wallet, held, status: 'expired', nowMs: command.nowMs });
    return success({ result: command.kind === 'expire' ? 'done' : 'expired', transaction: after, approvals });
  }
  if (command.kind === 'reject') {
    const after = release(state, context, effects, {
      wallet,
      held,
      status: 'rejected',
      nowMs: command.nowMs,
      actor: actorOf(command),
      note: command.reason,
      rejectionReason: command.reason ?? 'rejected by the wallet owner',
    });
    return success({ result: 'done', transaction: after, approvals });
  }
  return decideApprove(state, command, context, effects, { wallet, held, approvals });
}

/** The member's approval counts; the one that reaches the payment's required count executes it, once. */
function decideApprove(
  state: BatchState,
  command: ResolveCommand,
  context: BatchContext,
  effects: BatchEffects,
  found: { wallet: WalletState; held: HeldRow; approvals: ApprovalMark[] },
): Outcome<ResolveData> {
  const { wallet, held } = found;
  const member = command.member ?? { id: command.userId ?? 'system', email: '' };
  const needed = Number(held.approvals_required ?? 1n);
  const step = nextApproval(found.approvals, member.id, needed);
  if (step.kind === 'duplicate')
    throw invalidState('this member already approved the payment: it needs another member’s approval');
  const mark = { memberId: member.id, email: member.email, atMs: command.nowMs };
  const approvals = [...found.approvals, mark];
  state.approvals.set(held.id, approvals);
  effects.approvals.push({ transactionId: held.id, ...mark });
  if (step.kind === 'recorded') {
    effects.notices.push({ type: 'approval.recorded', row: held, approvals });
    return success({ result: 'recorded', transaction: held, approvals });
  }
  const actor = actorOf(command);
  const after =
    held.resource === null
      ? approve(state, context, effects, { wallet, held, actor, approvals }, command.nowMs)
      : approveX402(state, context, effects, { wallet, held, actor, approvals }, command.nowMs);
  return success({ result: 'done', transaction: after, approvals });
}

/** Who answered, as transaction events name it: the member (`user:<id>`), else the organization. */
function actorOf(command: ResolveCommand): string {
  return `user:${command.member?.id ?? command.userId}`;
}

/** Settles an approved payment from the hold: internal when the recipient is a wallet here, else the rail. */
function approve(
  state: BatchState,
  context: BatchContext,
  effects: BatchEffects,
  approved: Approved,
  nowMs: number,
): HeldRow {
  const { wallet, held, actor } = approved;
  const toAddress = held.to_address!;
  const amountMicros = held.amount_micros;
  // First, as it may refuse (a recipient past the balance bound): nothing is decided before it.
  const { status, rail } = payRecipient(state, context, effects, {
    id: held.id,
    payer: wallet,
    recipient: recipientOf(state, toAddress),
    fromAccountId: accountIds.hold(wallet.id),
    amountMicros,
    memo: held.memo,
    initiatedBy: actor,
    nowMs,
  });
  wallet.pendingCount -= 1;
  const processing = changed(held, { status: 'processing' }, nowMs);
  transition(state, effects, { before: held, after: processing, actor, note: APPROVED_NOTE });
  if (status === 'processing')
    effects.payouts.push({ transactionId: held.id, walletId: wallet.id, toAddress, amountMicros, nowMs });
  effects.notices.push({ type: 'approval.approved', row: processing, approvals: approved.approvals });
  const after = changed(processing, { status, rail }, nowMs);
  transition(state, effects, { before: processing, after, actor: 'system', note: null });
  if (status === 'completed') effects.notices.push({ type: 'payment.completed', row: after });
  return after;
}

/** An approved x402 payment is debited now (held → the rail) and signed when the agent asks again. */
function approveX402(
  state: BatchState,
  context: BatchContext,
  effects: BatchEffects,
  approved: Approved,
  nowMs: number,
): HeldRow {
  const { wallet, held, actor } = approved;
  transfer(state, context, effects, { kind: 'payment_external', referenceId: held.id, nowMs }, [
    { accountId: accountIds.hold(wallet.id), amountMicros: -held.amount_micros },
    { accountId: accountIds.external(held.rail ?? 'evm'), amountMicros: held.amount_micros },
  ]);
  wallet.pendingCount -= 1;
  const after = changed(held, { status: 'processing' }, nowMs);
  transition(state, effects, { before: held, after, actor, note: X402_APPROVED_NOTE });
  effects.x402Approved.push({ transactionId: held.id, nowMs });
  effects.notices.push({ type: 'approval.approved', row: after, approvals: approved.approvals });
  return after;
}

/** Returns the held amount to the wallet's available balance and closes the payment. */
function release(
  state: BatchState,
  context: BatchContext,
  effects: BatchEffects,
  change: {
    wallet: WalletState;
    held: HeldRow;
    status: 'rejected' | 'expired';
    nowMs: number;
    actor?: string;
    note?: string | null;
    rejectionReason?: string;
  },
): HeldRow {
  const { wallet, held, nowMs } = change;
  transfer(state, context, effects, { kind: 'release', referenceId: held.id, nowMs }, [
    { accountId: accountIds.hold(wallet.id), amountMicros: -held.amount_micros },
    { accountId: accountIds.available(wallet.id), amountMicros: held.amount_micros },
  ]);
  wallet.pendingCount -= 1;
  // A pending payment counted as spent; a released one does not (the total cap's running total).
  wallet.spentMicros -= held.amount_micros;
  const rejection = change.rejectionReason === undefined ? {} : { rejection_reason: change.rejectionReason };
  const after = changed(held, { status: change.status, ...rejection }, nowMs);
  transition(state, effects, {
    before: held,
    after,
    actor: change.actor ?? 'system',
    note: change.actor === undefined ? 'approval window ended' : (change.note ?? null),
  });
  effects.notices.push({ type: RELEASE_EVENTS[change.status], row: after });
  return after;
}

function changed(
  row: HeldRow,
  change: { status: TransactionStatus; rail?: string; rejection_reason?: string },
  nowMs: number,
): HeldRow {
  return { ...row, ...change, updated_at_ms: BigInt(nowMs) };
}

/** Records the transition and makes the new row what later commands of the batch see. */
function transition(state: BatchState, effects: BatchEffects, spec: TransitionSpec): void {
  effects.transitions.push(spec);
  state.held.set(spec.after.id, spec.after);
}

/** A payment whose approvals reached their count, who gave the last one, and all of them. */
interface Approved {
  wallet: WalletState;
  held: HeldRow;
  actor: string;
  approvals: readonly ApprovalMark[];
}
