import { useId, useState } from 'react';
import type { AgentWallet, Transaction } from '../api/types.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import {
  applyDecision,
  K,
  MAX_AGE,
  pendingTotal,
  refreshWallet,
  useAction,
  useAgentWallets,
  useResource,
} from '../data.ts';
import { formatDateTime, plural, txStatusLabel, walletName } from '../format.ts';
import { formatUsdc } from '../money.ts';
import { agentPath, WALLET_TABS } from '../router.ts';
import { policyTitle } from './policyInfo.ts';
import { describeViolation } from './violations.ts';

/** Wallets whose pending list loads by itself on the Approvals page; the rest load on request. */
const AUTO_LOAD_WALLETS = 5;

export function ApprovalsView() {
  const wallets = useAgentWallets();
  const waiting = wallets.data?.items.filter((wallet) => wallet.pendingApprovals > 0) ?? [];
  const total = pendingTotal(wallets.data);
  const [note, setNote] = useState<string | null>(null);
  return (
    <>
      <PageHeading title="Approvals">Approvals</PageHeading>
      <p className="lead" data-testid="approvals-summary">
        {wallets.data === undefined
          ? 'Checking for payments that wait for you…'
          : total === 0
            ? 'Nothing waits for your approval.'
            : `${plural(total, 'payment')} ${total === 1 ? 'waits' : 'wait'} for your approval.`}{' '}
        New requests from agents appear here by themselves.
      </p>
      <StatusNote text={note} />
      {wallets.data === undefined && wallets.error !== undefined && (
        <LoadError error={wallets.error} onRetry={wallets.reload} />
      )}
      {waiting.map((wallet, index) => (
        <section key={wallet.id} className="card" aria-labelledby={`approvals-${wallet.id}`}>
          <PendingApprovals
            wallet={wallet}
            headingLevel={2}
            autoLoad={index < AUTO_LOAD_WALLETS}
            showWalletName
            onDecided={setNote}
          />
        </section>
      ))}
    </>
  );
}

interface PendingApprovalsProps {
  wallet: AgentWallet;
  headingLevel: 2 | 3;
  autoLoad?: boolean;
  showWalletName?: boolean;
  /** Where to say what happened; by default a note inside this list. */
  onDecided?: (note: string) => void;
}

/**
 * The payments of one wallet that wait for a decision. Loaded only when the wallet's list entry says some
 * are waiting (the list is polled), so an empty wallet costs no request.
 */
export function PendingApprovals({
  wallet,
  headingLevel,
  autoLoad = true,
  showWalletName,
  onDecided,
}: PendingApprovalsProps) {
  const { api } = useApp();
  const [requested, setRequested] = useState(autoLoad);
  const [note, setNote] = useState<string | null>(null);
  const key = wallet.pendingApprovals > 0 && requested ? K.pending(wallet.id) : null;
  const pending = useResource(key, () => api.pending(wallet.id), MAX_AGE.pending);
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const items = wallet.pendingApprovals > 0 ? (pending.data?.transactions ?? []) : [];
  return (
    <div className="approvals" data-testid="pending-approvals">
      <Heading id={`approvals-${wallet.id}`}>
        {showWalletName ? (
          <Link to={agentPath(wallet.id, WALLET_TABS[1])}>{walletName(wallet.label)}</Link>
        ) : (
          'Waiting for approval'
        )}
      </Heading>
      {onDecided === undefined && <StatusNote text={note} />}
      {wallet.pendingApprovals === 0 ? (
        <p className="empty">No payments wait for your approval.</p>
      ) : !requested ? (
        <button type="button" className="button secondary" onClick={() => setRequested(true)}>
          Show {plural(wallet.pendingApprovals, 'waiting payment')}
        </button>
      ) : pending.data === undefined ? (
        pending.error !== undefined ? (
          <LoadError error={pending.error} onRetry={pending.reload} />
        ) : (
          <Loading />
        )
      ) : items.length === 0 ? (
        <p className="empty">No payments wait for your approval.</p>
      ) : (
        <ul className="approval-list">
          {items.map((tx) => (
            <PendingItem key={tx.id} tx={tx} onDecided={onDecided ?? setNote} />
          ))}
        </ul>
      )}
    </div>
  );
}

function PendingItem({ tx, onDecided }: { tx: Transaction; onDecided: (note: string) => void }) {
  const { api, cache } = useApp();
  const [dialog, setDialog] = useState<'approve' | 'reject' | null>(null);
  const amount = formatUsdc(tx.amount);

  async function decided(result: Transaction, verb: string) {
    applyDecision(cache, result);
    onDecided(
      `Payment of ${formatUsdc(result.amount)} ${verb}: now ${txStatusLabel(result.status, result.rail)}.`,
    );
    await refreshWallet(api, cache, result.walletId);
  }

  return (
    <li className="approval" data-testid="approval-item">
      <div className="tx-main">
        <span className="tx-amount">{amount}</span>
        <span className="tag tag-pending">awaiting approval</span>
      </div>
      <dl className="tx-meta">
        <div>
          <dt>To</dt>
          <dd>
            <code className="address small">{tx.toAddress ?? '—'}</code>
          </dd>
        </div>
        <div>
          <dt>Reason</dt>
          <dd className="user-text" data-testid="approval-reason">
            {tx.reason ?? '(none given)'}
          </dd>
        </div>
        {tx.memo !== null && (
          <div>
            <dt>Memo</dt>
            <dd className="user-text">{tx.memo}</dd>
          </div>
        )}
        <div>
          <dt>Asked</dt>
          <dd>{formatDateTime(tx.createdAt)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{formatDateTime(tx.expiresAt)}</dd>
        </div>
      </dl>
      <div className="violations-box">
        <p className="violations-title">Policies this payment would violate</p>
        {tx.violations !== null && tx.violations.length > 0 ? (
          <ul className="violations" data-testid="approval-violations">
            {tx.violations.map((violation) => (
              <li key={violation.policyId}>
                <strong>{policyTitle(violation.policyType)}</strong>: {describeViolation(violation)}
              </li>
            ))}
          </ul>
        ) : (
          <p className="hint">
            None: it waits because it is above an approval threshold, or because the agent asked.
          </p>
        )}
      </div>
      <div className="actions">
        <button type="button" className="button primary" onClick={() => setDialog('approve')}>
          Approve
        </button>
        <button type="button" className="button danger" onClick={() => setDialog('reject')}>
          Reject
        </button>
      </div>
      {dialog === 'approve' && (
        <ConfirmDialog
          title="Approve this payment?"
          confirmLabel="Approve payment"
          onClose={() => setDialog(null)}
          onConfirm={async () => decided(await api.approve(tx.walletId, tx.id), 'approved')}
        >
          <p>
            {amount} will be sent to <code className="address small">{tx.toAddress ?? '—'}</code>. Policies
            are not checked again: your approval is the decision.
          </p>
        </ConfirmDialog>
      )}
      {dialog === 'reject' && (
        <RejectDialog
          tx={tx}
          onClose={() => setDialog(null)}
          onRejected={(result) => decided(result, 'rejected')}
        />
      )}
    </li>
  );
}

const REASON_MAX = 500;

function RejectDialog({
  tx,
  onClose,
  onRejected,
}: {
  tx: Transaction;
  onClose: () => void;
  onRejected: (tx: Transaction) => Promise<void>;
}) {
  const { api } = useApp();
  const [reason, setReason] = useState('');
  const action = useAction();
  const reasonId = useId();
  const tooLong = reason.trim().length > REASON_MAX;
  async function reject() {
    if (tooLong) return;
    const error = await action.run(async () => onRejected(await api.reject(tx.walletId, tx.id, reason)));
    if (error === null) onClose();
  }
  return (
    <Dialog title="Reject this payment?" onClose={onClose}>
      <p>
        The {formatUsdc(tx.amount)} held for it goes back to the wallet's balance, and the agent sees the
        payment as rejected.
      </p>
      <div className="field">
        <label htmlFor={reasonId}>Reason for the agent (optional)</label>
        <textarea
          id={reasonId}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          rows={3}
          aria-invalid={tooLong ? true : undefined}
          aria-describedby={tooLong ? `${reasonId}-error` : undefined}
        />
        {tooLong && (
          <p className="field-error" id={`${reasonId}-error`}>
            Use at most {REASON_MAX} characters.
          </p>
        )}
      </div>
      <ErrorMessage error={action.error} />
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={reject} disabled={action.busy}>
          {action.busy ? 'Rejecting…' : 'Reject payment'}
        </button>
      </div>
    </Dialog>
  );
}
