// Approvals by more than one person (contract section 9, require_approvals): a held payment needs N distinct
// members' approvals; one reject rejects it; it executes exactly once, when the Nth distinct approval arrives.
// Pure: the ledger batch asks this with the approvals stored so far, read under the wallet's lock, so two
// approvals racing on two instances are decided one after the other.

/** One member's approval of a held payment. */
export interface ApprovalMark {
  memberId: string;
  email: string;
  atMs: number;
}

/** The most approvers a policy may ask for; the fewest that makes it "more than one person". */
export const APPROVERS_MAX = 5;

export type ApprovalStep =
  /** This member approved it already: refused, nothing changes. */
  | { kind: 'duplicate' }
  /** Counted; the payment still waits for `needed - count` more. */
  | { kind: 'recorded'; count: number; needed: number }
  /** The count is reached with this approval: the payment executes now. */
  | { kind: 'execute'; count: number; needed: number };

/** What one more approval by `memberId` does to a payment with `approvals` that needs `needed`. */
export function nextApproval(
  approvals: readonly ApprovalMark[],
  memberId: string,
  needed: number,
): ApprovalStep {
  if (approvals.some((a) => a.memberId === memberId)) return { kind: 'duplicate' };
  const count = approvals.length + 1;
  // The pair of the check below: a payment never holds as many approvals as it needs while still pending.
  if (approvals.length >= needed)
    throw new Error(`a pending payment holds ${approvals.length} of ${needed} approvals`);
  return count >= needed ? { kind: 'execute', count, needed } : { kind: 'recorded', count, needed };
}
