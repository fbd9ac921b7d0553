// A wallet's activity, first thing on its page: how much of each cap is used, spending per day over the last
// 30 days, then the transactions. One request for the transactions (100 newest; more only when the 30 days
// need them) and one for the policies, both shared with the other tabs. The chart (recharts, the biggest library
// here) loads as its own chunk when a wallet's activity is first shown, so the first page stays small.
import type { AgentWallet } from '@agent-wallet/sdk';
import { lazy, Suspense, useMemo, useState } from 'react';
import { capBars, capNotes, chartStart, spendByDay } from '../activity.ts';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp, useCan } from '../app-context.ts';
import { Loading } from '../components/Common.tsx';
import { K, STALE, useActivity, useResource } from '../queries.ts';
import { CapBars } from './CapBars.tsx';
import { FreezeButton } from './SettingsPanel.tsx';
import { TransactionsTable } from './TransactionsTable.tsx';

/** The chart, in a chunk of its own (a separate file: the CSP's script-src 'self' allows it). */
const SpendChart = lazy(async () => ({ default: (await import('./SpendChart.tsx')).SpendChart }));

/** Where the chart goes, while its code loads: the same card and heading, so nothing moves. */
function ChartPlaceholder() {
  return (
    <section className="card chart-card" aria-labelledby="spend-title-loading">
      <h2 id="spend-title-loading">Spending, last 30 days</h2>
      <Loading />
    </section>
  );
}

export function ActivityPanel({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const [now] = useState(() => Date.now());
  const since = chartStart(now);
  const activity = useActivity(wallet.id, since);
  const policies = useResource(
    K.policies(wallet.id),
    () => sdk.policies.list(wallet.id, { limit: FULL_LIST_LIMIT }),
    STALE.details,
  );
  const txs = activity.transactions;
  const oldest = txs.at(-1)?.createdAt;
  // The 30 days are covered when every transaction is loaded or the oldest loaded is older than they are.
  const covered = !activity.hasOlder || (oldest !== undefined && Date.parse(oldest) < since);
  const chart = useMemo(() => spendByDay(txs, Date.now()), [txs]);
  const bars = useMemo(
    () => capBars(wallet, policies.data?.items ?? [], txs, Date.now()),
    [wallet, policies.data, txs],
  );
  const notes = useMemo(() => capNotes(policies.data?.items ?? []), [policies.data]);
  const loaded = activity.total !== undefined;
  return (
    <>
      {wallet.frozen && <FrozenBanner wallet={wallet} />}
      <div className="activity-grid">
        <CapBars
          bars={bars}
          notes={notes}
          loading={policies.data === undefined && policies.error === undefined}
        />
        <Suspense fallback={<ChartPlaceholder />}>
          <SpendChart chart={chart} loading={!loaded} partial={loaded && !covered} />
        </Suspense>
      </div>
      <TransactionsTable wallet={wallet} activity={activity} />
    </>
  );
}

/**
 * A frozen wallet, over its caps: by the owner or by its breaker (auto_freeze; the REST view does not say which),
 * it pays nothing until unfrozen. The unfreeze action is offered to a role that may (editWallet).
 */
export function FrozenBanner({ wallet }: { wallet: AgentWallet }) {
  const mayEdit = useCan()('editWallet');
  return (
    <div className="warning frozen-banner" role="status" data-testid="frozen-banner">
      <p>
        <strong>Frozen</strong> — payments are refused until you unfreeze it.
        {!mayEdit && ' An admin or an owner can unfreeze it.'}
      </p>
      {mayEdit && <FreezeButton wallet={wallet} />}
    </div>
  );
}
