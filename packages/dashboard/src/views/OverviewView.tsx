// The page a logged-in person sees first: what waits for them (payments to approve, money on its way), the latest
// payments across their agents, on the evm rail the treasury (what a breach of the server could move), and what
// each agent spent today against its caps. A few wallets only (see overview.ts): each costs two requests (its
// policies and its newest 100 transactions, both shared with its own page), so a hundred wallets do not mean two
// hundred requests; the rest are one link away.
import type { AgentWallet, Transaction } from '@agent-wallet/sdk';
import { useMemo, useState } from 'react';
import { capBars, capNotes } from '../activity.ts';
import type { WithdrawalPage } from '../api/custody.ts';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import {
  amountView,
  counterpartyOf,
  formatDateTime,
  formatRelative,
  plural,
  txStatusLabel,
  walletName,
} from '../format.ts';
import { formatUsdc, fromMicros } from '../money.ts';
import {
  type ActivityData,
  K,
  pendingTotal,
  STALE,
  useActivity,
  useAgentWallets,
  useMasterWallet,
  usePeekAll,
  useResource,
  type WalletList,
  WITHDRAWALS_PAGE_SIZE,
} from '../queries.ts';
import { agentPath } from '../router.ts';
import { Inbox } from './Approvals.tsx';
import { CapList } from './CapBars.tsx';
import {
  LATEST_PAYMENTS,
  latestPayments,
  loadedSince,
  OVERVIEW_APPROVALS,
  ownerTimezone,
  pickWallets,
  spentToday,
  startOfToday,
} from './overview.ts';
import { PendingDeposits } from './PendingDeposits.tsx';
import { TreasuryCard } from './TreasuryCard.tsx';
import { useOwnWallets } from './useOwnWallets.ts';

export function OverviewView() {
  const { chain } = useApp();
  const wallets = useAgentWallets();
  const picked = useMemo(() => pickWallets(wallets.data?.items ?? []), [wallets.data]);
  return (
    <>
      <PageHeading title="Overview">Overview</PageHeading>
      <Summary list={wallets.data} />
      {wallets.data === undefined && wallets.error !== undefined && (
        <LoadError error={wallets.error} onRetry={wallets.reload} />
      )}
      <div className="overview-grid">
        <WaitingCard list={wallets.data} picked={picked} />
        <LatestPaymentsCard list={wallets.data} picked={picked} />
      </div>
      {chain !== null && <TreasuryCard />}
      {wallets.data !== undefined && <AgentsToday picked={picked} total={wallets.data.total} />}
    </>
  );
}

/** One line of totals: the master wallet's balance, the agents, what waits. */
function Summary({ list }: { list: WalletList | undefined }) {
  const master = useMasterWallet();
  const waiting = pendingTotal(list);
  return (
    <p className="lead overview-summary" data-testid="overview-summary">
      Master wallet:{' '}
      <strong data-testid="overview-master-balance">
        {master.data === undefined ? '…' : formatUsdc(master.data.balance)}
      </strong>
      {list !== undefined && (
        <>
          {' · '}
          {plural(list.total, 'agent wallet')}
          {' · '}
          {waiting === 0 ? 'nothing waits for you' : `${plural(waiting, 'payment')} waiting for you`}
        </>
      )}
    </p>
  );
}

/** Payments to approve or reject (the Approvals page's inbox, shortened), and money on its way on chain. */
function WaitingCard({ list, picked }: { list: WalletList | undefined; picked: AgentWallet[] }) {
  const { chain } = useApp();
  const [note, setNote] = useState<string | null>(null);
  const total = pendingTotal(list);
  // The picked wallets come with the waiting ones first: these few hold at least the payments shown.
  const waiting = picked.filter((wallet) => wallet.pendingApprovals > 0).slice(0, OVERVIEW_APPROVALS);
  return (
    <section className="card overview-waiting" aria-labelledby="waiting-title" data-testid="overview-waiting">
      <h2 id="waiting-title">Waiting for you</h2>
      <StatusNote text={note} />
      {list === undefined ? (
        <Loading />
      ) : total === 0 ? (
        <p className="empty">No payments wait for your approval.</p>
      ) : (
        <Inbox
          wallets={waiting}
          walletNames
          showEmpty={false}
          onDecided={setNote}
          limit={OVERVIEW_APPROVALS}
        />
      )}
      {total > OVERVIEW_APPROVALS && (
        <p className="hint">
          <Link to="/approvals">See all {plural(total, 'waiting payment')} on the Approvals page</Link>
        </p>
      )}
      {chain !== null && (
        <>
          <PendingDeposits />
          <WithdrawalsOnTheirWay />
        </>
      )}
    </section>
  );
}

/** evm rail: withdrawals sent but not yet confirmed on chain (the master wallet's newest page of them). */
function WithdrawalsOnTheirWay() {
  const { client } = useApp();
  const page = useResource<WithdrawalPage>(
    K.withdrawals(1),
    () => client.custody.withdrawals(1, WITHDRAWALS_PAGE_SIZE),
    STALE.withdrawals,
  );
  const sending = page.data?.items.filter((item) => item.status === 'processing') ?? [];
  if (sending.length === 0) return null;
  return (
    <div className="subsection">
      <h3>Withdrawals on their way</h3>
      <ul className="rows" data-testid="overview-withdrawals">
        {sending.map((item) => (
          <li key={item.id} className="row">
            <span className="row-amount withdrawal-amount">−{formatUsdc(item.amount)}</span>
            <span className="row-meta">{formatDateTime(item.createdAt)}</span>
          </li>
        ))}
      </ul>
      <p className="hint">
        <Link to="/master">See them on the master wallet</Link>
      </p>
    </div>
  );
}

/** The newest payments of the shown wallets, newest first: read from what their cards loaded (no request). */
function LatestPaymentsCard({ list, picked }: { list: WalletList | undefined; picked: AgentWallet[] }) {
  const keys = useMemo(() => picked.map((wallet) => K.activity(wallet.id)), [picked]);
  const activity = usePeekAll<ActivityData>(keys);
  const payments = useMemo(
    () => latestPayments(activity.map((data) => data?.pages.flatMap((page) => page.transactions) ?? [])),
    [activity],
  );
  const names = new Map(picked.map((wallet) => [wallet.id, walletName(wallet.label)]));
  const loading = list === undefined || (picked.length > 0 && activity.every((data) => data === undefined));
  return (
    <section className="card overview-latest" aria-labelledby="latest-title" data-testid="overview-latest">
      <h2 id="latest-title">Latest payments</h2>
      {loading ? (
        <Loading />
      ) : payments.length === 0 ? (
        <p className="empty">No payments yet.</p>
      ) : (
        <ul className="latest-list" aria-label="Latest payments, newest first">
          {payments.map((tx) => (
            <PaymentRow key={tx.id} tx={tx} wallet={names.get(tx.walletId) ?? walletName(null)} />
          ))}
        </ul>
      )}
      {list !== undefined && list.total > picked.length && (
        <p className="hint">
          The newest {LATEST_PAYMENTS} of the wallets below. Every payment is on each wallet's page.
        </p>
      )}
    </section>
  );
}

function PaymentRow({ tx, wallet }: { tx: Transaction; wallet: string }) {
  const own = useOwnWallets();
  const other = counterpartyOf(tx, own);
  const amount = amountView(tx);
  return (
    <li className="latest-payment" data-testid="latest-payment" data-status={tx.status}>
      <span className={`latest-amount amount-${amount.direction}`}>
        {amount.moved ? amount.text : <s>{amount.text}</s>}
        {!amount.moved && <span className="visually-hidden"> (not paid)</span>}
      </span>
      <span className="latest-what">
        <Link to={agentPath(tx.walletId)}>{wallet}</Link>
        <span className="hint latest-to" title={other.detail ?? undefined}>
          to {other.name}
        </span>
      </span>
      <span className="latest-status">
        <StatusTag status={tx.status} label={txStatusLabel(tx.status, tx.rail)} />
        <time className="hint" dateTime={tx.createdAt} title={formatDateTime(tx.createdAt)}>
          {formatRelative(tx.createdAt)}
        </time>
      </span>
    </li>
  );
}

/** Each shown agent: balance, frozen or not, spent today and every cap with how much of it is used. */
function AgentsToday({ picked, total }: { picked: AgentWallet[]; total: number }) {
  const timezone = ownerTimezone();
  const todayStartMs = startOfToday(Date.now(), timezone);
  return (
    <section aria-labelledby="agents-today-title" data-testid="overview-agents">
      <div className="panel-head">
        <h2 id="agents-today-title">Agents today</h2>
        <Link to="/agents">All agent wallets</Link>
      </div>
      <p className="hint">
        Today is since midnight in {timezone}; the daily cap counts the last 24 hours.
        {total > picked.length &&
          ` Showing ${picked.length} of ${total} wallets: those with payments waiting first, then frozen ones, then the newest.`}
      </p>
      {picked.length === 0 ? (
        <p className="empty">
          No agent wallets yet. <Link to="/agents">Create one on the Agent wallets page.</Link>
        </p>
      ) : (
        <ul className="overview-agents">
          {picked.map((wallet) => (
            <AgentCard key={wallet.id} wallet={wallet} todayStartMs={todayStartMs} />
          ))}
        </ul>
      )}
    </section>
  );
}

function AgentCard({ wallet, todayStartMs }: { wallet: AgentWallet; todayStartMs: number }) {
  const { sdk } = useApp();
  // Only the newest page (100): never more pages by itself here, however far back a cap's window reaches.
  const activity = useActivity(wallet.id, Number.POSITIVE_INFINITY);
  const policies = useResource(
    K.policies(wallet.id),
    () => sdk.policies.list(wallet.id, { limit: FULL_LIST_LIMIT }),
    STALE.details,
  );
  const txs = activity.transactions;
  const since = loadedSince(txs, activity.hasOlder);
  const items = policies.data?.items;
  const bars = useMemo(
    () => capBars(wallet, items ?? [], txs, Date.now(), since),
    [wallet, items, txs, since],
  );
  const notes = useMemo(() => capNotes(items ?? []), [items]);
  const loaded = activity.total !== undefined;
  return (
    <li className="card overview-agent" data-testid="overview-agent" data-wallet-id={wallet.id}>
      <div className="overview-agent-head">
        <Link to={agentPath(wallet.id)} className="wallet-name">
          {walletName(wallet.label)}
        </Link>
        {wallet.frozen && <StatusTag status="frozen" />}
        <span className="overview-balance" data-testid="overview-balance">
          {formatUsdc(wallet.balance)}
          {wallet.heldBalance !== '0.000000' && (
            <span className="hint"> + {formatUsdc(wallet.heldBalance)} held</span>
          )}
        </span>
      </div>
      {wallet.frozen && <p className="hint">Frozen: payments are refused until it is unfrozen.</p>}
      {activity.error !== undefined ? (
        <LoadError error={activity.error} onRetry={activity.reload} />
      ) : (
        <SpentTodayLine spent={loaded ? spentToday(txs, todayStartMs, since) : null} />
      )}
      <CapList
        bars={loaded ? bars : []}
        notes={notes}
        loading={!loaded || (items === undefined && policies.error === undefined)}
      />
      {policies.error !== undefined && <LoadError error={policies.error} onRetry={policies.reload} />}
    </li>
  );
}

function SpentTodayLine({ spent }: { spent: ReturnType<typeof spentToday> | null }) {
  if (spent === null) return <p className="overview-spent">Spent today: …</p>;
  return (
    <p className="overview-spent" data-testid="spent-today">
      Spent today:{' '}
      <strong>
        {spent.complete ? '' : 'at least '}
        {formatUsdc(fromMicros(spent.paid))}
      </strong>
      {spent.held > 0n && <> · {formatUsdc(fromMicros(spent.held))} held for approval</>}
    </p>
  );
}
