// Approvals by more than one member (contract section 9, policy require_approvals): how many of how many, who
// approved and when, and whether the person looking has already approved (the server refuses a second approval
// by the same member, 409). Pure: unit-tested.
import type { Transaction } from '@agent-wallet/sdk';
import { plural } from '../format.ts';

type Approvals = Pick<Transaction, 'approvalsRequired' | 'approvals'>;
export type Approval = Transaction['approvals'][number];

/** The approvals a held payment needs; 1 unless a require_approvals policy asked for more. */
export function approvalsNeeded(tx: Approvals): number {
  return tx.approvalsRequired ?? 1;
}

/** "1 of 2 approvals" for a payment that needs several; null when one decision settles it. */
export function approvalCountText(tx: Approvals): string | null {
  const needed = approvalsNeeded(tx);
  if (needed <= 1) return null;
  const given = Math.min(approvalsOf(tx).length, needed);
  return `${given} of ${needed} approvals`;
}

/** How many more approvals the payment waits for (0 once it has them all). */
export function approvalsLeft(tx: Approvals): number {
  return Math.max(0, approvalsNeeded(tx) - approvalsOf(tx).length);
}

/** Whether `memberId` has approved it already (then they cannot approve it again). */
export function hasApproved(tx: Approvals, memberId: string | undefined): boolean {
  return memberId !== undefined && approvalsOf(tx).some((approval) => approval.memberId === memberId);
}

/** Who approved, in a word: "you" for the person looking, anyone else by email. */
export function approverName(approval: Approval, selfId: string | undefined): string {
  return approval.memberId === selfId ? 'you' : approval.email;
}

/** The note after an approval: settled ("now Completed"), or recorded with how many approvals are still needed. */
export function approvalNote(
  tx: Approvals & Pick<Transaction, 'status'>,
  amount: string,
  statusLabel: string,
) {
  if (tx.status !== 'pending') return `Payment of ${amount} approved: now ${statusLabel}.`;
  const count = approvalCountText(tx);
  return `Your approval of the ${amount} payment is recorded${count === null ? '' : ` (${count})`}: ${plural(
    approvalsLeft(tx),
    'more approval',
  )} needed.`;
}

function approvalsOf(tx: Approvals): Approval[] {
  return Array.isArray(tx.approvals) ? tx.approvals : [];
}
