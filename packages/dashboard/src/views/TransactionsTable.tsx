// A wallet's transactions as a table: time with seconds (and how long ago), what it was, who is on the other
// side (a wallet's label when it is one of yours, an API's host and path for x402, and how it was paid: "x402
// exact", "MPP charge"), status, and aligned amounts — rejected and failed payments unsigned and struck through, as
// money that did not move. Filters by status and date; the rows shown export as CSV.
import type { AgentWallet, Transaction, TransactionStatus } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { dayKey } from '../activity.ts';
import { TX_STATUSES } from '../api/wire.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { Receipt } from '../components/Receipt.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TxHash } from '../components/TxHash.tsx';
import { csvFileName, downloadText, transactionsCsv } from '../csv.ts';
import {
  amountView,
  counterpartyOf,
  formatDateTime,
  formatRelative,
  paidWith,
  receiptOf,
  TX_TYPE_NAMES,
  txStatusLabel,
  walletName,
} from '../format.ts';
import { refreshWallet, type useActivity } from '../queries.ts';
import { AuditTrail } from './AuditTrail.tsx';
import { approvalCountText } from './approvalWords.ts';
import { policyTitle } from './policyInfo.ts';
import { useOwnWallets } from './useOwnWallets.ts';
import { deniedBy, describeViolation } from './violations.ts';

type Activity = ReturnType<typeof useActivity>;

export interface TxFilter {
  status: TransactionStatus | '';
  /** YYYY-MM-DD, local days, inclusive; '' = open. */
  from: string;
  to: string;
}

export function filterTransactions(txs: readonly Transaction[], filter: TxFilter): Transaction[] {
  return txs.filter((tx) => {
    if (filter.status !== '' && tx.status !== filter.status) return false;
    const day = dayKey(new Date(tx.createdAt));
    if (filter.from !== '' && day < filter.from) return false;
    if (filter.to !== '' && day > filter.to) return false;
    return true;
  });
}

export function TransactionsTable({ wallet, activity }: { wallet: AgentWallet; activity: Activity }) {
  const own = useOwnWallets();
  const [filter, setFilter] = useState<TxFilter>({ status: '', from: '', to: '' });
  const rows = useMemo(
    () => filterTransactions(activity.transactions, filter),
    [activity.transactions, filter],
  );
  const loaded = activity.total !== undefined;
  const filtered = filter.status !== '' || filter.from !== '' || filter.to !== '';
  return (
    <section className="card" aria-labelledby="txs-title">
      <div className="panel-head">
        <h2 id="txs-title">Transactions</h2>
        <TxTools wallet={wallet} activity={activity} rows={rows} own={own} />
      </div>
      <FilterBar filter={filter} onChange={setFilter} />
      {!loaded ? (
        activity.error !== undefined ? (
          <LoadError error={activity.error} onRetry={activity.reload} />
        ) : (
          <Loading />
        )
      ) : rows.length === 0 ? (
        <p className="empty">{filtered ? 'No transactions match these filters.' : 'No transactions yet.'}</p>
      ) : (
        <TxTable rows={rows} own={own} />
      )}
      {loaded && activity.error !== undefined && (
        <LoadError error={activity.error} onRetry={activity.reload} />
      )}
      {loaded && <TxCount shown={rows.length} activity={activity} filtered={filtered} />}
    </section>
  );
}

/** Refresh (the list and the balances above it) and the CSV export of the rows shown. */
function TxTools({
  wallet,
  activity,
  rows,
  own,
}: {
  wallet: AgentWallet;
  activity: Activity;
  rows: Transaction[];
  own: ReadonlyMap<string, string>;
}) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const name = walletName(wallet.label);
  const loaded = activity.total !== undefined;
  return (
    <div className="panel-tools">
      <button
        type="button"
        className="button secondary small"
        onClick={() => {
          // The list and the balances above it, together (two requests, on demand only).
          activity.reload();
          void refreshWallet(sdk, qc, wallet.id);
        }}
        disabled={activity.loading}
      >
        {activity.loading && loaded ? 'Refreshing…' : 'Refresh'}
      </button>
      <button
        type="button"
        className="button secondary small"
        disabled={rows.length === 0}
        onClick={() =>
          downloadText(
            csvFileName(name),
            transactionsCsv(
              rows.map((tx) => ({ tx, walletName: name })),
              own,
            ),
          )
        }
      >
        Export CSV
      </button>
    </div>
  );
}

/** Below the table: how many are shown of how many, and older ones on demand. */
function TxCount({ shown, activity, filtered }: { shown: number; activity: Activity; filtered: boolean }) {
  return (
    <p className="hint table-foot" data-testid="tx-count">
      {shown} shown
      {activity.total !== undefined && ` of ${activity.total}`}
      {filtered && ' (filtered)'}.{' '}
      {activity.hasOlder && (
        <button type="button" className="button link small" onClick={activity.loadOlder}>
          Load older transactions
        </button>
      )}
    </p>
  );
}

function FilterBar({ filter, onChange }: { filter: TxFilter; onChange: (filter: TxFilter) => void }) {
  const id = useId();
  return (
    <fieldset className="filters">
      <legend className="visually-hidden">Filter transactions</legend>
      <div className="field compact">
        <label htmlFor={`${id}-status`}>Status</label>
        <select
          id={`${id}-status`}
          value={filter.status}
          onChange={(event) => onChange({ ...filter, status: event.target.value as TransactionStatus | '' })}
        >
          <option value="">All</option>
          {TX_STATUSES.map((name) => (
            <option key={name} value={name}>
              {txStatusLabel(name, null)}
            </option>
          ))}
        </select>
      </div>
      <div className="field compact">
        <label htmlFor={`${id}-from`}>From</label>
        <input
          id={`${id}-from`}
          type="date"
          value={filter.from}
          onChange={(event) => onChange({ ...filter, from: event.target.value })}
        />
      </div>
      <div className="field compact">
        <label htmlFor={`${id}-to`}>To</label>
        <input
          id={`${id}-to`}
          type="date"
          value={filter.to}
          onChange={(event) => onChange({ ...filter, to: event.target.value })}
        />
      </div>
    </fieldset>
  );
}

function TxTable({ rows, own }: { rows: Transaction[]; own: ReadonlyMap<string, string> }) {
  const [now] = useState(() => Date.now());
  return (
    <div className="table-wrap">
      <table className="tx-table" data-testid="tx-list">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">What</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">
              Amount
            </th>
            <th scope="col">
              <span className="visually-hidden">Details</span>
            </th>
          </tr>
        </thead>
        {rows.map((tx) => (
          <TxRow key={tx.id} tx={tx} own={own} now={now} />
        ))}
      </table>
    </div>
  );
}

function TxRow({ tx, own, now }: { tx: Transaction; own: ReadonlyMap<string, string>; now: number }) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const amount = amountView(tx);
  const denied = tx.status === 'rejected' && tx.violations !== null && tx.violations.length > 0;
  const receipt = receiptOf(tx);
  return (
    <tbody className="tx-item" data-testid="tx-item" data-status={tx.status} data-moved={amount.moved}>
      <tr>
        <TxCells tx={tx} own={own} now={now} amount={amount} />
        <td className="tx-more">
          <button
            type="button"
            className="button link small"
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={() => setOpen(!open)}
          >
            {open ? 'Hide audit trail' : 'Audit trail'}
          </button>
        </td>
      </tr>
      {denied && <ViolationsRow violations={tx.violations ?? []} />}
      {open && (
        <tr className="tx-details" id={detailsId}>
          <td colSpan={5}>
            <AuditTrail walletId={tx.walletId} txId={tx.id} />
          </td>
        </tr>
      )}
      {tx.txHash !== null && !open && (
        <tr className="tx-note">
          <td colSpan={5} className="hint">
            Transaction hash <TxHash hash={tx.txHash} />
          </td>
        </tr>
      )}
      {receipt !== null && !open && (
        <tr className="tx-note">
          <td colSpan={5} className="hint">
            <span className="receipt-label">Seller’s receipt</span> <Receipt receipt={receipt} />
          </td>
        </tr>
      )}
    </tbody>
  );
}

/** A transaction's time, what it was and with whom, its status and its amount: the row's first four cells. */
function TxCells({
  tx,
  own,
  now,
  amount,
}: {
  tx: Transaction;
  own: ReadonlyMap<string, string>;
  now: number;
  amount: ReturnType<typeof amountView>;
}) {
  const other = counterpartyOf(tx, own);
  const method = paidWith(tx);
  return (
    <>
      <td className="tx-time">
        <time dateTime={tx.createdAt}>{formatDateTime(tx.createdAt)}</time>
        <span className="hint">{formatRelative(tx.createdAt, now)}</span>
      </td>
      <td className="tx-what">
        <span className="tx-type">{TX_TYPE_NAMES[tx.type] ?? tx.type}</span>{' '}
        <span className={`counterparty${other.own ? ' own' : ''}`} title={other.detail ?? undefined}>
          {other.name}
        </span>
        {method !== null && (
          <span className="tx-method" data-testid="tx-method">
            Paid with {method}
          </span>
        )}
        {tx.memo !== null && <span className="tx-memo user-text">{tx.memo}</span>}
      </td>
      <td className="tx-status">
        <StatusTag status={tx.status} label={txStatusLabel(tx.status, tx.rail)} />
        {tx.status === 'pending' && approvalCountText(tx) !== null && (
          <span className="hint tx-approvals" data-testid="tx-approval-count">
            {approvalCountText(tx)}
          </span>
        )}
      </td>
      <td className={`num tx-amount amount-${amount.direction}`} data-testid="tx-amount">
        {amount.moved ? (
          amount.text
        ) : (
          <>
            <s>{amount.text}</s>
            <span className="visually-hidden"> (not paid)</span>
          </>
        )}
      </td>
    </>
  );
}

/** Under a payment a policy denied: which policies, in the dashboard's own words. */
function ViolationsRow({ violations }: { violations: NonNullable<Transaction['violations']> }) {
  return (
    <tr className="tx-note">
      <td colSpan={5}>
        <div className="violations-box" data-testid="tx-violations">
          <p className="violations-title">{deniedBy(violations.length)}</p>
          <ul className="violations">
            {violations.map((v) => (
              <li key={v.policyId}>
                <strong>{policyTitle(v.policyType)}</strong>: {describeViolation(v)}
              </li>
            ))}
          </ul>
        </div>
      </td>
    </tr>
  );
}
