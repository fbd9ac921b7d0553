// One transaction's audit trail in words: who started it, why it waited or was refused, and every change of
// state with who made it — API keys by their label, the owner as "you", expiry as "expired automatically".
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TxHash } from '../components/TxHash.tsx';
import { capitalize, describeActor, formatDateTime, resourceLabel, txStatusLabel } from '../format.ts';
import { K, STALE, useResource } from '../queries.ts';
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
  const why = approvalWhy(data.reason);
  const resource = (data as { resource?: string | null }).resource;
  return (
    <div className="audit" data-testid="audit-trail">
      <dl className="tx-meta">
        <div>
          <dt>Started by</dt>
          <dd>{capitalize(describeActor(data.initiatedBy, keyLabels))}</dd>
        </div>
        {data.toAddress !== null && (
          <div>
            <dt>To</dt>
            <dd>
              <code className="address small">{data.toAddress}</code>
            </dd>
          </div>
        )}
        {typeof resource === 'string' && (
          <div>
            <dt>Paid for</dt>
            <dd title={resource}>{resourceLabel(resource)}</dd>
          </div>
        )}
        {data.reason !== null && (
          <div>
            <dt>{why.kind === 'threshold' ? 'Why it waited' : 'Agent’s reason'}</dt>
            {why.kind === 'threshold' ? (
              <dd>{approvalSentence(why, data.amount)}</dd>
            ) : (
              <dd className="user-text">{data.reason}</dd>
            )}
          </div>
        )}
        {data.rejectionReason !== null && (
          <div>
            <dt>Rejection reason</dt>
            {isPolicyRejection(data.rejectionReason, data.violations) ? (
              <dd>Denied by policy, as listed</dd>
            ) : (
              <dd className="user-text">{data.rejectionReason}</dd>
            )}
          </div>
        )}
        {data.txHash !== null && (
          <div>
            <dt>Transaction hash</dt>
            <dd>
              <TxHash hash={data.txHash} />
            </dd>
          </div>
        )}
        {data.violations !== null && data.violations.length > 0 && (
          <div>
            <dt>Policies</dt>
            <dd>
              <ul className="violations">
                {data.violations.map((v) => (
                  <li key={v.policyId}>
                    {policyTitle(v.policyType)}: {describeViolation(v)}
                  </li>
                ))}
              </ul>
            </dd>
          </div>
        )}
      </dl>
      <h3 className="audit-title">History</h3>
      <ol className="events">
        {data.events.map((event) => {
          const note = event.note === null ? null : describeNote(event.note, data.violations);
          return (
            <li key={`${event.at}-${event.status}-${event.actor}`}>
              <StatusTag status={event.status} label={txStatusLabel(event.status, data.rail)} />{' '}
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
    </div>
  );
}
