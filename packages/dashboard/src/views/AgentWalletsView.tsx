// The overview: every agent with its balance, how much of today's cap it has used, and what waits for approval;
// sortable. New wallets are created here, and every wallet's transactions export as one CSV.
import type { AgentWallet, Transaction } from '@agent-wallet/sdk';
import { useQueries, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useRef, useState } from 'react';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { Meter } from '../components/Meter.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { csvFileName, downloadText, transactionsCsv } from '../csv.ts';
import { plural, walletName } from '../format.ts';
import { formatUsdc } from '../money.ts';
import { addWallet, K, POLL_RESERVE, STALE, useAction, useAgentWallets } from '../queries.ts';
import { agentPath } from '../router.ts';
import { useOwnWallets } from './useOwnWallets.ts';
import { type DailyUse, dailyUse, type SortKey, sortWallets } from './walletTable.ts';

export const LABEL_MAX = 100;

/** Wallets whose daily cap (from their policies) the overview loads to draw today's use: the first ones. */
const DAILY_CAP_WALLETS = 10;

export function labelError(label: string): string | null {
  const trimmed = label.trim();
  if (trimmed === '') return 'Enter a label.';
  if (trimmed.length > LABEL_MAX) return `Use at most ${LABEL_MAX} characters (this has ${trimmed.length}).`;
  return null;
}

export function AgentWalletsView() {
  const wallets = useAgentWallets();
  const mayCreate = useCan()('createWallet');
  const data = wallets.data;
  return (
    <>
      <PageHeading title="Agent wallets">Agent wallets</PageHeading>
      <p className="lead">
        What each of your agents holds, how much of today's cap it has used, and what waits for you.
      </p>
      <section aria-labelledby="wallets-title" className="card">
        <div className="panel-head">
          <h2 id="wallets-title">
            Your agents{data !== undefined && data.total > 0 ? ` (${data.total})` : ''}
          </h2>
          {data !== undefined && data.items.length > 0 && <ExportAll wallets={data.items} />}
        </div>
        {data === undefined ? (
          wallets.error !== undefined ? (
            <LoadError error={wallets.error} onRetry={wallets.reload} />
          ) : (
            <Loading />
          )
        ) : data.items.length === 0 ? (
          <p className="empty">No agent wallets yet.{mayCreate ? ' Create one below.' : ''}</p>
        ) : (
          <WalletTable wallets={data.items} />
        )}
        {data !== undefined && data.items.length < data.total && (
          <p className="hint">
            Showing the newest {data.items.length} of {data.total} wallets.
          </p>
        )}
      </section>
      {mayCreate && <CreateWalletForm />}
    </>
  );
}

/** Today's use of each wallet's daily cap: its policies, loaded for the first wallets that have such a cap. */
function useDailyUse(wallets: AgentWallet[]): Map<string, DailyUse> {
  const { sdk } = useApp();
  const capped = wallets.filter((wallet) => wallet.dailyCapRemaining !== null).slice(0, DAILY_CAP_WALLETS);
  const results = useQueries({
    queries: capped.map((wallet) => ({
      queryKey: K.policies(wallet.id),
      queryFn: () => sdk.policies.list(wallet.id, { limit: FULL_LIST_LIMIT }),
      staleTime: 5 * STALE.details,
    })),
  });
  const uses = new Map<string, DailyUse>();
  for (const wallet of wallets) uses.set(wallet.id, dailyUse(wallet, undefined));
  for (const [index, wallet] of capped.entries()) {
    uses.set(wallet.id, dailyUse(wallet, results[index]?.data?.items));
  }
  return uses;
}

const COLUMNS: { key: SortKey; title: string; num?: boolean }[] = [
  { key: 'name', title: 'Agent' },
  { key: 'balance', title: 'Balance', num: true },
  { key: 'today', title: "Today's spend vs cap" },
  { key: 'pending', title: 'Waiting approvals', num: true },
];

function WalletTable({ wallets }: { wallets: AgentWallet[] }) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'name', descending: false });
  const uses = useDailyUse(wallets);
  const rows = useMemo(() => sortWallets(wallets, uses, sort.key, sort.descending), [wallets, uses, sort]);
  return (
    <div className="table-wrap">
      <table className="wallet-table" data-testid="wallet-list">
        <thead>
          <tr>
            {COLUMNS.map((column) => {
              const active = sort.key === column.key;
              return (
                <th
                  key={column.key}
                  scope="col"
                  className={column.num ? 'num' : undefined}
                  aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}
                >
                  <button
                    type="button"
                    className="sort-button"
                    onClick={() =>
                      setSort({
                        key: column.key,
                        descending: active ? !sort.descending : column.key !== 'name',
                      })
                    }
                  >
                    {column.title}
                    <span aria-hidden="true">{active ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((wallet) => (
            <WalletRow key={wallet.id} wallet={wallet} use={uses.get(wallet.id)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function WalletRow({ wallet, use }: { wallet: AgentWallet; use: DailyUse | undefined }) {
  return (
    <tr data-testid="wallet-card">
      <td className="wallet-cell">
        <Link to={agentPath(wallet.id)} className="wallet-name" data-testid="wallet-link">
          {walletName(wallet.label)}
        </Link>
        {wallet.frozen && <StatusTag status="frozen" />}
      </td>
      <td className="num" data-label="Balance">
        {formatUsdc(wallet.balance)}
        {wallet.heldBalance !== '0.000000' && (
          <span className="hint"> + {formatUsdc(wallet.heldBalance)} held</span>
        )}
      </td>
      <td data-label="Today" data-testid="wallet-today">
        <TodayCell use={use} />
      </td>
      <td className="num" data-label="Waiting">
        {wallet.pendingApprovals > 0 ? (
          <Link to={agentPath(wallet.id, 'approvals')} className="pending-pill">
            {plural(wallet.pendingApprovals, 'approval')}
          </Link>
        ) : (
          <span className="hint">None</span>
        )}
      </td>
    </tr>
  );
}

function TodayCell({ use }: { use: DailyUse | undefined }) {
  if (use === undefined || use.kind === 'none') return <span className="hint">No daily cap</span>;
  if (use.kind === 'remaining') return <span>{formatUsdc(use.remaining)} left today</span>;
  return (
    <div className="today">
      <span>
        {use.usedText} of {use.limitText}
      </span>
      <Meter
        percent={use.percent}
        label="Today's spend against the daily cap"
        valueText={`${use.usedText} of ${use.limitText}`}
        small
      />
    </div>
  );
}

/** Every wallet's transactions as one CSV: up to 10 pages of 100 a wallet, keeping the poll's reserve free. */
function ExportAll({ wallets }: { wallets: AgentWallet[] }) {
  const { sdk, client } = useApp();
  const own = useOwnWallets();
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  async function exportAll() {
    setNote(null);
    const rows: { tx: Transaction; walletName: string }[] = [];
    let complete = true;
    await action.run(async () => {
      for (const wallet of wallets) {
        for (let page = 1; page <= 10; page += 1) {
          const budget = client.budget('agent_wallets');
          if (budget !== undefined && budget.remaining <= POLL_RESERVE) {
            complete = false;
            break;
          }
          const list = await sdk.transactions.list(wallet.id, { page, limit: FULL_LIST_LIMIT });
          rows.push(...list.transactions.map((tx) => ({ tx, walletName: walletName(wallet.label) })));
          if (page * FULL_LIST_LIMIT >= list.total) break;
          if (page === 10) complete = false;
        }
      }
      rows.sort((a, b) => b.tx.createdAt.localeCompare(a.tx.createdAt));
      downloadText(csvFileName('all-wallets'), transactionsCsv(rows, own));
      setNote(
        `Exported ${plural(rows.length, 'transaction')}${complete ? '' : ' (not all: try again in a minute for the rest)'}.`,
      );
    });
  }
  return (
    <div className="panel-tools">
      <button type="button" className="button secondary small" onClick={exportAll} disabled={action.busy}>
        {action.busy ? 'Exporting…' : 'Export all transactions (CSV)'}
      </button>
      <ErrorMessage error={action.error} />
      <StatusNote text={note} />
    </div>
  );
}

function CreateWalletForm() {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const [label, setLabel] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);
  const error = labelError(label);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    if (error !== null) return inputRef.current?.focus();
    const value = label.trim();
    const failed = await action.run(async () => {
      addWallet(qc, await sdk.agentWallets.create({ label: value }));
    });
    if (failed === null) {
      setLabel('');
      setSubmitted(false);
      setNote(`Created the wallet “${value}”.`);
    }
  }

  return (
    <section className="card" aria-labelledby="create-wallet-title">
      <h2 id="create-wallet-title">New agent wallet</h2>
      <form className="inline-form" onSubmit={onSubmit} noValidate>
        <TextField
          label="Label"
          value={label}
          onChange={setLabel}
          inputRef={inputRef}
          error={submitted ? error : null}
          hint="A name for the agent, e.g. Research bot."
          maxLength={200}
          autoComplete="off"
        />
        <button type="submit" className="button primary" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create wallet'}
        </button>
      </form>
      <ErrorMessage error={action.error} />
      <StatusNote text={note} />
    </section>
  );
}
