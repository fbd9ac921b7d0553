import type { Transaction } from '@agent-wallet/sdk';
import { useApp } from '../app-context.ts';
import { formatDateTime } from '../format.ts';
import { approvalCountText, approverName } from './approvalWords.ts';

/** For a payment that needs several approvals: "1 of 2 approvals", and who approved when. */
export function ApprovalProgress({ tx }: { tx: Transaction }) {
  const { session } = useApp();
  const count = approvalCountText(tx);
  if (count === null && tx.approvals.length === 0) return null;
  return (
    <div className="approval-progress" data-testid="approval-progress">
      {count !== null && (
        <p className="approval-count" data-testid="approval-count">
          <strong>{count}</strong>
        </p>
      )}
      {tx.approvals.length > 0 && (
        <ul className="approvers" aria-label="Approved by" data-testid="approvers">
          {tx.approvals.map((approval) => (
            <li key={approval.memberId}>
              Approved by <span className="user-text">{approverName(approval, session.user.id)}</span>{' '}
              <time dateTime={approval.at}>{formatDateTime(approval.at)}</time>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
