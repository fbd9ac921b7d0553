// One transaction's audit trail in words: who started it, why it waited or was refused, and every change of
// state with who made it — API keys by their label, the owner as "you", expiry as "expired automatically".
import type { TransactionWithEvents } from '@agent-wallet/sdk';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { Receipt } from '../components/Receipt.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TxHash } from '../components/TxHash.tsx';
import {
  authorizedBeyond,
  capitalize,
  describeActor,
  formatDateTime,
  paidWith,
  receiptOf,
  resourceLabel,
  txStatusLabel,
} from '../format.ts';
import { formatUsdc } from '../money.ts';
import { K, STALE, useResource } from '../queries.ts';
import { ApprovalProgress } from './ApprovalProgress.tsx';
import { policyTitle } from './policyInfo.ts';
import {
  approvalSentence,
  approvalWhy,
  describeNote,
  describeViolation,
  isPolicyRejection,
} from './violations.ts';

export function AuditTrail({ walletId, txId }: { walletId: string; txId: string }) {
  const { sdk } = useApp();
  const detail = useResource(
    K.tx(walletId, txId),
    () => sdk.transactions.get(walletId, txId),
    STALE.txDetail,
  );
  const keys = useResource(
    K.keys(walletId),
    () => sdk.keys.list(walletId, { limit: FULL_LIST_LIMIT }),
    STALE.details,
  );
  const keyLabels = new Map((keys.data?.items ?? []).map((key) => [key.id, key.label]));
  const data = detail.data;
  if (data === undefined) {
    return detail.error !== undefined ? (
      <LoadError error={detail.error} onRetry={detail.reload} />
    ) : (
      <Loading />
    );
  }
  return (
    <div className="audit" data-testid="audit-trail">
      <dl className="tx-meta">
        <Origin tx={data} keyLabels={keyLabels} />
        <Reasons tx={data} />
        <Outcome tx={data} />
      </dl>
      <ApprovalProgress tx={data} />
      <h3 className="audit-title">History</h3>
      <History tx={data} keyLabels={keyLabels} />
    </div>
  );
}

type KeyLabels = ReadonlyMap<string, string>;

/** Who started it, to which address, for which paid HTTP API and how it paid. */
function Origin({ tx, keyLabels }: { tx: TransactionWithEvents; keyLabels: KeyLabels }) {
  const resource = (tx as { resource?: string | null }).resource;
  const method = paidWith(tx);
  const authorized = authorizedBeyond(tx);
  return (
    <>
      <div>
        <dt>Started by</dt>
        <dd>{capitalize(describeActor(tx.initiatedBy, keyLabels))}</dd>
      </div>
      {tx.toAddress !== null && (
        <div>
          <dt>To</dt>
          <dd>
            <code className="address small">{tx.toAddress}</code>
          </dd>
        </div>
      )}
      {typeof resource === 'string' && (
        <div>
          <dt>Paid for</dt>
          <dd title={resource}>{resourceLabel(resource)}</dd>
        </div>
      )}
      {method !== null && (
        <div>
          <dt>Paid with</dt>
          <dd data-testid="audit-method">{method}</dd>
        </div>
      )}
      {authorized !== null && (
        <div>
          <dt>Authorized up to</dt>
          <dd>{formatUsdc(authorized)}</dd>
        </div>
      )}
    </>
  );
}

/** Why it waited (the threshold, or the agent's own reason) and why it was rejected. */
function Reasons({ tx }: { tx: TransactionWithEvents }) {
  const why = approvalWhy(tx.reason);
  return (
    <>
      {tx.reason !== null && (
        <div>
          <dt>{why.kind === 'threshold' ? 'Why it waited' : 'Agent’s reason'}</dt>
          {why.kind === 'threshold' ? (
            <dd>{approvalSentence(why, tx.amount)}</dd>
          ) : (
            <dd className="user-text">{tx.reason}</dd>
          )}
        </div>
      )}
      {tx.rejectionReason !== null && (
        <div>
          <dt>Rejection reason</dt>
          {isPolicyRejection(tx.rejectionReason, tx.violations) ? (
            <dd>Denied by policy, as listed</dd>
          ) : (
            <dd className="user-text">{tx.rejectionReason}</dd>
          )}
        </div>
      )}
    </>
  );
}

/** Its transaction hash on chain, the seller's receipt, and the policies it broke. */
function Outcome({ tx }: { tx: TransactionWithEvents }) {
  const receipt = receiptOf(tx);
  return (
    <>
      {tx.txHash !== null && (
        <div>
          <dt>Transaction hash</dt>
          <dd>
            <TxHash hash={tx.txHash} />
          </dd>
        </div>
      )}
      {receipt !== null && (
        <div>
          <dt>Seller’s receipt</dt>
          <dd>
            <Receipt receipt={receipt} />
          </dd>
        </div>
      )}
      {tx.violations !== null && tx.violations.length > 0 && (
        <div>
          <dt>Policies</dt>
          <dd>
            <ul className="violations">
              {tx.violations.map((v) => (
                <li key={v.policyId}>
                  {policyTitle(v.policyType)}: {describeViolation(v)}
                </li>
              ))}
            </ul>
          </dd>
        </div>
      )}
    </>
  );
}

/** Every change of state, with who made it. */
function History({ tx, keyLabels }: { tx: TransactionWithEvents; keyLabels: KeyLabels }) {
  return (
    <ol className="events">
      {tx.events.map((event) => {
        const note = event.note === null ? null : describeNote(event.note, tx.violations);
        return (
          <li key={`${event.at}-${event.status}-${event.actor}`}>
            <StatusTag status={event.status} label={txStatusLabel(event.status, tx.rail)} />{' '}
            <time dateTime={event.at}>{formatDateTime(event.at)}</time> ·{' '}
            <span>{describeActor(event.actor, keyLabels, event.status)}</span>
            {note !== null &&
              (note.quoted ? (
                <span className="user-text"> — “{note.text}”</span>
              ) : (
                <span> — {note.text}</span>
              ))}
          </li>
        );
      })}
    </ol>
  );
}
