// Approvals as an inbox: every payment waiting for the owner, soonest to expire first, each with its reason in
// one sentence, the policies it would break and the time left; approve or reject with a click or the keyboard
// (j / k move, a approves, r rejects). The header's badge and this list follow the one poll of the wallet list.
import type { AgentWallet, Transaction } from '@agent-wallet/sdk';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { toApiError } from '../api/errors.ts';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { DialogActions } from '../components/DialogActions.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { counterpartyOf, formatDateTime, plural, timeLeft, txStatusLabel, walletName } from '../format.ts';
import { formatUsdc } from '../money.ts';
import {
  applyDecision,
  K,
  pendingTotal,
  refreshWallet,
  STALE,
  useAction,
  useAgentWallets,
} from '../queries.ts';
import { agentPath } from '../router.ts';
import { ApprovalProgress } from './ApprovalProgress.tsx';
import { approvalNote, hasApproved } from './approvalWords.ts';
import { policyTitle } from './policyInfo.ts';
import { useOwnWallets } from './useOwnWallets.ts';
import { approvalSentence, approvalWhy, describeViolation } from './violations.ts';

/** Wallets whose waiting payments load by themselves; beyond them the inbox links to each wallet. */
const AUTO_LOAD_WALLETS = 10;

/** Waiting payments of the given wallets (only those that have some: an empty wallet costs no request). */
function usePending(wallets: AgentWallet[]) {
  const { sdk } = useApp();
  const results = useQueries({
    queries: wallets.map((wallet) => ({
      queryKey: K.pending(wallet.id),
      queryFn: () => sdk.transactions.pending(wallet.id, { limit: FULL_LIST_LIMIT }),
      staleTime: STALE.pending,
    })),
  });
  const items = results
    .flatMap((result, index) =>
      (wallets[index]?.pendingApprovals ?? 0) > 0 ? (result.data?.transactions ?? []) : [],
    )
    .sort((a, b) => (a.expiresAt ?? '9999').localeCompare(b.expiresAt ?? '9999'));
  const failed = results.find((result) => result.error !== null);
  return {
    items,
    loading: results.some((result) => result.data === undefined && result.error === null),
    error: failed?.error === undefined || failed.error === null ? undefined : toApiError(failed.error),
    reload: () => {
      for (const result of results) void result.refetch();
    },
  };
}

export function ApprovalsView() {
  const wallets = useAgentWallets();
  const waiting = wallets.data?.items.filter((wallet) => wallet.pendingApprovals > 0) ?? [];
  const total = pendingTotal(wallets.data);
  const loaded = waiting.slice(0, AUTO_LOAD_WALLETS);
  const [note, setNote] = useState<string | null>(null);
  return (
    <>
      <PageHeading title="Approvals">Approvals</PageHeading>
      <p className="lead" data-testid="approvals-summary">
        {wallets.data === undefined
          ? 'Checking for payments that wait for you…'
          : total === 0
            ? 'Nothing waits for your approval.'
            : `${plural(total, 'payment')} ${total === 1 ? 'waits' : 'wait'} for your approval, soonest to expire first.`}{' '}
        New requests from agents appear here by themselves.
      </p>
      <StatusNote text={note} />
      {wallets.data === undefined && wallets.error !== undefined && (
        <LoadError error={wallets.error} onRetry={wallets.reload} />
      )}
      {loaded.length > 0 && <Inbox wallets={loaded} walletNames showEmpty={false} onDecided={setNote} />}
      {waiting.length > AUTO_LOAD_WALLETS && (
        <p className="hint">
          More wallets have payments waiting:{' '}
          {waiting.slice(AUTO_LOAD_WALLETS).map((wallet, index) => (
            <span key={wallet.id}>
              {index > 0 && ', '}
              <Link to={agentPath(wallet.id, 'approvals')}>{walletName(wallet.label)}</Link>
            </span>
          ))}
          .
        </p>
      )}
    </>
  );
}

/** The payments of one wallet that wait for a decision (its Approvals tab). */
export function PendingApprovals({ wallet, headingLevel }: { wallet: AgentWallet; headingLevel: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const [note, setNote] = useState<string | null>(null);
  return (
    <div className="approvals" data-testid="pending-approvals">
      <Heading>Waiting for approval</Heading>
      <StatusNote text={note} />
      <Inbox
        wallets={wallet.pendingApprovals > 0 ? [wallet] : []}
        walletNames={false}
        showEmpty
        onDecided={setNote}
      />
    </div>
  );
}

interface InboxProps {
  wallets: AgentWallet[];
  walletNames: boolean;
  showEmpty: boolean;
  onDecided: (note: string) => void;
  /** Show only the first this many (soonest to expire): the overview's short list. */
  limit?: number;
}

/** The waiting payments of `wallets`, with approve and reject for a role that may decide (also the overview's). */
export function Inbox({ wallets, walletNames, showEmpty, onDecided, limit }: InboxProps) {
  const pending = usePending(wallets);
  const shown = limit === undefined ? pending.items : pending.items.slice(0, limit);
  const { session } = useApp();
  const mayDecide = useCan()('decide');
  const listRef = useRef<HTMLUListElement>(null);
  const [dialog, setDialog] = useState<{ tx: Transaction; kind: 'approve' | 'reject' } | null>(null);
  const names = new Map(wallets.map((wallet) => [wallet.id, walletName(wallet.label)]));
  if (pending.items.length === 0) {
    if (pending.loading) return <Loading />;
    if (pending.error !== undefined) return <LoadError error={pending.error} onRetry={pending.reload} />;
    return showEmpty ? <p className="empty">No payments wait for your approval.</p> : null;
  }

  function onKeyDown(event: KeyboardEvent<HTMLLIElement>, tx: Transaction) {
    if (event.target !== event.currentTarget || event.ctrlKey || event.metaKey || event.altKey) return;
    const items = [...(listRef.current?.querySelectorAll<HTMLElement>('[data-inbox-item]') ?? [])];
    const index = items.indexOf(event.currentTarget);
    const move = (to: number) => items[Math.max(0, Math.min(items.length - 1, to))]?.focus();
    const key = event.key;
    if (key === 'j' || key === 'ArrowDown') move(index + 1);
    else if (key === 'k' || key === 'ArrowUp') move(index - 1);
    else if (key === 'a' && mayDecide && !hasApproved(tx, session.user.id))
      setDialog({ tx, kind: 'approve' });
    else if (key === 'r' && mayDecide) setDialog({ tx, kind: 'reject' });
    else return;
    event.preventDefault();
  }

  return (
    <>
      {mayDecide ? (
        <p className="hint keyboard-hint" id="inbox-keys">
          Keyboard: select a payment, then <kbd>a</kbd> approve, <kbd>r</kbd> reject, <kbd>j</kbd> /{' '}
          <kbd>k</kbd> next / previous.
        </p>
      ) : (
        <p className="hint" id="inbox-keys" data-testid="approvals-read-only">
          Your role can see these payments but not approve or reject them.
        </p>
      )}
      <ul className="inbox" ref={listRef} aria-label="Payments waiting for approval">
        {shown.map((tx) => (
          <InboxItem
            key={tx.id}
            tx={tx}
            walletName={walletNames ? names.get(tx.walletId) : undefined}
            onKeyDown={(event) => onKeyDown(event, tx)}
            onDecide={(kind) => setDialog({ tx, kind })}
          />
        ))}
      </ul>
      {dialog !== null && (
        <Decision tx={dialog.tx} kind={dialog.kind} onClose={() => setDialog(null)} onDecided={onDecided} />
      )}
    </>
  );
}

function InboxItem({
  tx,
  walletName: wallet,
  onKeyDown,
  onDecide,
}: {
  tx: Transaction;
  walletName: string | undefined;
  onKeyDown: (event: KeyboardEvent<HTMLLIElement>) => void;
  onDecide: (kind: 'approve' | 'reject') => void;
}) {
  const violations = tx.violations ?? [];
  return (
    <li
      className="inbox-item"
      data-testid="approval-item"
      data-inbox-item
      // biome-ignore lint/a11y/noNoninteractiveTabindex: each payment takes focus so the keyboard can act on it (a, r, j, k)
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-describedby="inbox-keys"
    >
      <InboxHead tx={tx} walletName={wallet} />
      <InboxWhy tx={tx} />
      {violations.length > 0 && (
        <div className="inbox-breaks">
          <p className="violations-title">Approving it would override:</p>
          <ul className="violations" data-testid="approval-violations">
            {violations.map((violation) => (
              <li key={violation.policyId}>
                <strong>{policyTitle(violation.policyType)}</strong>: {describeViolation(violation)}
              </li>
            ))}
          </ul>
        </div>
      )}
      {tx.memo !== null && <p className="hint user-text">Memo: {tx.memo}</p>}
      <ApprovalProgress tx={tx} />
      <DecisionButtons tx={tx} onDecide={onDecide} />
    </li>
  );
}

/** How much, to whom (from which wallet, in the all-wallets inbox) and the time left. */
function InboxHead({ tx, walletName: wallet }: { tx: Transaction; walletName: string | undefined }) {
  const own = useOwnWallets();
  const other = counterpartyOf(tx, own);
  return (
    <div className="inbox-head">
      <span className="inbox-amount">{formatUsdc(tx.amount)}</span>
      <span className="inbox-to">
        to <span title={other.detail ?? undefined}>{other.name}</span>
        {wallet !== undefined && (
          <>
            {' '}
            from <Link to={agentPath(tx.walletId, 'approvals')}>{wallet}</Link>
          </>
        )}
      </span>
      <span
        className="tag tag-pending"
        title={`Expires ${formatDateTime(tx.expiresAt)}`}
        data-testid="approval-expiry"
      >
        {timeLeft(tx.expiresAt)}
      </span>
    </div>
  );
}

/** Why it waits, in one sentence, with the agent's own reason quoted when it asked. */
function InboxWhy({ tx }: { tx: Transaction }) {
  const why = approvalWhy(tx.reason);
  return (
    <p className="inbox-why" data-testid="approval-why">
      {approvalSentence(why, tx.amount)}
      {why.kind === 'asked' && why.reason !== null && (
        <>
          {' '}
          <q className="user-text" data-testid="approval-reason">
            {why.reason}
          </q>
        </>
      )}
    </p>
  );
}

function DecisionButtons({
  tx,
  onDecide,
}: {
  tx: Transaction;
  onDecide: (kind: 'approve' | 'reject') => void;
}) {
  const { session } = useApp();
  const can = useCan();
  const approved = hasApproved(tx, session.user.id);
  return (
    <div className="actions">
      {can('decide') && !approved && (
        <button
          type="button"
          className="button primary small"
          onClick={() => onDecide('approve')}
          aria-keyshortcuts="a"
        >
          Approve
        </button>
      )}
      {can('decide') && approved && (
        <span className="tag tag-completed" data-testid="approved-by-you">
          You approved it
        </span>
      )}
      {can('decide') && (
        <button
          type="button"
          className="button secondary small"
          onClick={() => onDecide('reject')}
          aria-keyshortcuts="r"
        >
          Reject
        </button>
      )}
      <span className="hint">Asked {formatDateTime(tx.createdAt)}</span>
    </div>
  );
}

function Decision({
  tx,
  kind,
  onClose,
  onDecided,
}: {
  tx: Transaction;
  kind: 'approve' | 'reject';
  onClose: () => void;
  onDecided: (note: string) => void;
}) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const own = useOwnWallets();
  const amount = formatUsdc(tx.amount);
  async function decided(result: Transaction, verb: 'approved' | 'rejected') {
    applyDecision(qc, result);
    const status = txStatusLabel(result.status, result.rail);
    onDecided(
      verb === 'approved'
        ? approvalNote(result, formatUsdc(result.amount), status)
        : `Payment of ${formatUsdc(result.amount)} rejected: now ${status}.`,
    );
    await refreshWallet(sdk, qc, result.walletId);
  }
  if (kind === 'reject') {
    return <RejectDialog tx={tx} onClose={onClose} onRejected={(result) => decided(result, 'rejected')} />;
  }
  return (
    <ConfirmDialog
      title="Approve this payment?"
      confirmLabel="Approve payment"
      onClose={onClose}
      onConfirm={async () => decided(await sdk.transactions.approve(tx.walletId, tx.id), 'approved')}
    >
      <p>
        {amount} will be sent to {counterpartyOf(tx, own).name}
        {tx.toAddress !== null && (
          <>
            {' '}
            (<code className="address small">{tx.toAddress}</code>)
          </>
        )}
        . Policies are not checked again: your approval is the decision
        {tx.approvalsRequired !== null && tx.approvalsRequired > 1
          ? ` — one of the ${tx.approvalsRequired} it needs (${tx.approvals.length} so far); it is sent once the last one is given`
          : ''}
        .
      </p>
    </ConfirmDialog>
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
  const { sdk } = useApp();
  const [reason, setReason] = useState('');
  const action = useAction();
  const reasonId = useId();
  const tooLong = reason.trim().length > REASON_MAX;
  async function reject() {
    if (tooLong) return;
    const text = reason.trim();
    const error = await action.run(async () =>
      onRejected(await sdk.transactions.reject(tx.walletId, tx.id, text === '' ? {} : { reason: text })),
    );
    if (error === null) onClose();
  }
  return (
    <Dialog title="Reject this payment?" onClose={onClose}>
      <p>
        The {formatUsdc(tx.amount)} held for it goes back to the wallet's balance, and the agent sees the
        payment as rejected. This cannot be undone.
      </p>
      <div className="field">
        <label htmlFor={reasonId}>Reason for the agent (optional)</label>
        <textarea
          id={reasonId}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          rows={3}
          data-autofocus
          aria-invalid={tooLong ? true : undefined}
          aria-describedby={tooLong ? `${reasonId}-error` : undefined}
        />
        {tooLong && (
          <p className="field-error" id={`${reasonId}-error`}>
            Use at most {REASON_MAX} characters.
          </p>
        )}
      </div>
      <DialogActions
        action={action}
        label="Reject payment"
        busyLabel="Rejecting…"
        danger
        onAct={reject}
        onCancel={onClose}
      />
    </Dialog>
  );
}
