import { useId, useState } from 'react';
import {
  type AgentWallet,
  type ApiKey,
  type Page,
  type Transaction,
  TX_STATUSES,
  type TxStatus,
} from '../api/types.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { Pagination } from '../components/Pagination.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TxHash } from '../components/TxHash.tsx';
import { K, MAX_AGE, refreshWallet, TXS_PAGE_SIZE, usePeek, useResource } from '../data.ts';
import { describeActor, formatDateTime, TX_TYPE_NAMES, txStatusLabel } from '../format.ts';
import { formatUsdc } from '../money.ts';
import { policyTitle } from './policyInfo.ts';
import { deniedBy, describeViolation, isPolicyRejection } from './violations.ts';

export function TransactionsPanel({ wallet }: { wallet: AgentWallet }) {
  const { api, cache } = useApp();
  const [status, setStatus] = useState<TxStatus | ''>('');
  const [page, setPage] = useState(1);
  const filterId = useId();
  const txs = useResource(
    K.txs(wallet.id, status, page),
    () => api.transactions(wallet.id, page, TXS_PAGE_SIZE, status === '' ? undefined : status),
    MAX_AGE.transactions,
  );
  const data = txs.data;
  return (
    <>
      <div className="panel-head">
        <h2>Transactions</h2>
        <div className="panel-tools">
          <label htmlFor={filterId}>Status</label>
          <select
            id={filterId}
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as TxStatus | '');
              setPage(1);
            }}
          >
            <option value="">All</option>
            {TX_STATUSES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="button secondary small"
            onClick={() => {
              // The list and the balances above it, together (two requests, on demand only).
              txs.reload();
              void refreshWallet(api, cache, wallet.id);
            }}
            disabled={txs.loading}
          >
            {txs.loading && data !== undefined ? 'Refreshing…' : 'Refresh'}
          </button>
        </div>
      </div>
      {data === undefined ? (
        txs.error !== undefined ? (
          <LoadError error={txs.error} onRetry={txs.reload} />
        ) : (
          <Loading />
        )
      ) : data.transactions.length === 0 ? (
        <p className="empty">{status === '' ? 'No transactions yet.' : `No ${status} transactions.`}</p>
      ) : (
        <ul className="tx-list" data-testid="tx-list">
          {data.transactions.map((tx) => (
            <TransactionItem key={tx.id} tx={tx} />
          ))}
        </ul>
      )}
      {data !== undefined && txs.error !== undefined && <LoadError error={txs.error} onRetry={txs.reload} />}
      {data !== undefined && (
        <Pagination
          page={page}
          limit={TXS_PAGE_SIZE}
          total={data.total}
          onPage={setPage}
          label="Transaction pages"
        />
      )}
    </>
  );
}

function direction(tx: Transaction): string {
  return tx.type === 'fund' || tx.type === 'incoming' ? '+' : '−';
}

function TransactionItem({ tx }: { tx: Transaction }) {
  const [open, setOpen] = useState(false);
  const auditId = useId();
  return (
    <li className="tx" data-testid="tx-item" data-status={tx.status}>
      <div className="tx-main">
        <span className="tx-amount">
          {direction(tx)}
          {formatUsdc(tx.amount)}
        </span>
        <StatusTag status={tx.status} label={txStatusLabel(tx.status, tx.rail)} />
        <span className="tx-type">{TX_TYPE_NAMES[tx.type] ?? tx.type}</span>
      </div>
      <dl className="tx-meta">
        {tx.toAddress !== null && (
          <div>
            <dt>To</dt>
            <dd>
              <code className="address small">{tx.toAddress}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>Rail</dt>
          <dd>{tx.rail ?? '—'}</dd>
        </div>
        <div>
          <dt>Memo</dt>
          <dd className="user-text">{tx.memo ?? '—'}</dd>
        </div>
        <div>
          <dt>Date</dt>
          <dd>{formatDateTime(tx.createdAt)}</dd>
        </div>
        {tx.txHash !== null && (
          <div>
            <dt>Transaction hash</dt>
            <dd>
              <TxHash hash={tx.txHash} />
            </dd>
          </div>
        )}
      </dl>
      {tx.status === 'rejected' && tx.violations !== null && tx.violations.length > 0 && (
        <div className="violations-box" data-testid="tx-violations">
          <p className="violations-title">{deniedBy(tx.violations.length)}</p>
          <ul className="violations">
            {tx.violations.map((v) => (
              <li key={v.policyId}>
                <strong>{policyTitle(v.policyType)}</strong>: {describeViolation(v)}
              </li>
            ))}
          </ul>
        </div>
      )}
      <button
        type="button"
        className="button link small"
        aria-expanded={open}
        aria-controls={auditId}
        onClick={() => setOpen(!open)}
      >
        {open ? 'Hide audit trail' : 'Audit trail'}
      </button>
      {open && (
        <div id={auditId}>
          <AuditTrail walletId={tx.walletId} txId={tx.id} />
        </div>
      )}
    </li>
  );
}

export function AuditTrail({ walletId, txId }: { walletId: string; txId: string }) {
  const { api } = useApp();
  const detail = useResource(K.tx(walletId, txId), () => api.transaction(walletId, txId), MAX_AGE.txDetail);
  const keys = usePeek<Page<ApiKey>>(K.keys(walletId));
  const keyLabels = new Map((keys?.items ?? []).map((key) => [key.id, key.label]));
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
        <div>
          <dt>Started by</dt>
          <dd>{describeActor(data.initiatedBy, keyLabels)}</dd>
        </div>
        {data.reason !== null && (
          <div>
            <dt>Reason</dt>
            <dd className="user-text">{data.reason}</dd>
          </div>
        )}
        {data.rejectionReason !== null && (
          <div>
            <dt>Rejection reason</dt>
            {isPolicyRejection(data.rejectionReason, data.violations) ? (
              <dd>{deniedBy(data.violations?.length ?? 0)}</dd>
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
        {data.events.map((event) => (
          <li key={`${event.at}-${event.status}-${event.actor}`}>
            <StatusTag status={event.status} label={txStatusLabel(event.status, data.rail)} />{' '}
            <span>{formatDateTime(event.at)}</span> · <span>{describeActor(event.actor, keyLabels)}</span>
            {event.note !== null && <span className="user-text"> — {event.note}</span>}
          </li>
        ))}
      </ol>
    </div>
  );
}
