// The wallet's policy audit trail: every policy added, changed, paused, resumed or deleted, newest first.

import type { PolicyChange } from '@agent-wallet/sdk';
import { useState } from 'react';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { Pagination } from '../components/Pagination.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { describeActor, formatDateTime } from '../format.ts';
import { K, POLICY_CHANGES_PAGE_SIZE, STALE, useResource } from '../queries.ts';
import { actionWord, describePolicyChange } from './policyHistory.ts';

export function PolicyHistory({ walletId }: { walletId: string }) {
  const { sdk } = useApp();
  const [page, setPage] = useState(1);
  const changes = useResource(
    K.policyChanges(walletId, page),
    () => sdk.policies.changes(walletId, { page, limit: POLICY_CHANGES_PAGE_SIZE }),
    STALE.policyChanges,
  );
  const data = changes.data;
  return (
    <section className="subsection" aria-labelledby={`policy-history-${walletId}`}>
      <h3 id={`policy-history-${walletId}`}>History</h3>
      <p className="hint">Every change to this wallet's policies, newest first.</p>
      {data === undefined ? (
        changes.error !== undefined ? (
          <LoadError error={changes.error} onRetry={changes.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No changes yet.</p>
      ) : (
        <ol className="change-list" data-testid="policy-history">
          {data.items.map((change) => (
            <ChangeItem key={change.id} change={change} />
          ))}
        </ol>
      )}
      {data !== undefined && (
        <Pagination
          page={page}
          limit={POLICY_CHANGES_PAGE_SIZE}
          total={data.total}
          onPage={setPage}
          label="Policy history pages"
        />
      )}
    </section>
  );
}

function ChangeItem({ change }: { change: PolicyChange }) {
  return (
    <li className="change" data-testid="policy-change" data-action={change.action}>
      <div className="key-head">
        <StatusTag status={change.action} label={actionWord(change.action)} />
        <span className="change-what">{describePolicyChange(change)}</span>
      </div>
      <p className="hint">
        <time dateTime={change.createdAt}>{formatDateTime(change.createdAt)}</time> ·{' '}
        {describeActor(change.actor)}
      </p>
    </li>
  );
}
