import { type FormEvent, useRef, useState } from 'react';
import type { AgentWallet } from '../api/types.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { addWallet, useAction, useAgentWallets } from '../data.ts';
import { plural, walletName } from '../format.ts';
import { formatCap, formatUsdc } from '../money.ts';
import { agentPath } from '../router.ts';

export const LABEL_MAX = 100;

export function labelError(label: string): string | null {
  const trimmed = label.trim();
  if (trimmed === '') return 'Enter a label.';
  if (trimmed.length > LABEL_MAX) return `Use at most ${LABEL_MAX} characters (this has ${trimmed.length}).`;
  return null;
}

export function AgentWalletsView() {
  const wallets = useAgentWallets();
  const data = wallets.data;
  return (
    <>
      <PageHeading title="Agent wallets">Agent wallets</PageHeading>
      <p className="lead">Each AI agent gets its own wallet, API keys and spending policies.</p>
      <CreateWalletForm />
      <section aria-labelledby="wallets-title" className="section">
        <h2 id="wallets-title">
          Your agent wallets{data !== undefined && data.total > 0 ? ` (${data.total})` : ''}
        </h2>
        {data === undefined ? (
          wallets.error !== undefined ? (
            <LoadError error={wallets.error} onRetry={wallets.reload} />
          ) : (
            <Loading />
          )
        ) : data.items.length === 0 ? (
          <p className="empty">No agent wallets yet. Create one above.</p>
        ) : (
          <ul className="wallet-list" data-testid="wallet-list">
            {data.items.map((wallet) => (
              <WalletCard key={wallet.id} wallet={wallet} />
            ))}
          </ul>
        )}
        {data !== undefined && data.items.length < data.total && (
          <p className="hint">
            Showing the newest {data.items.length} of {data.total} wallets.
          </p>
        )}
      </section>
    </>
  );
}

function WalletCard({ wallet }: { wallet: AgentWallet }) {
  return (
    <li className="wallet-card" data-testid="wallet-card">
      <div className="wallet-card-head">
        <Link to={agentPath(wallet.id)} className="wallet-name" data-testid="wallet-link">
          {walletName(wallet.label)}
        </Link>
        {wallet.frozen && <StatusTag status="frozen" />}
        {wallet.pendingApprovals > 0 && (
          <Link to={agentPath(wallet.id, 'approvals')} className="pending-pill">
            {plural(wallet.pendingApprovals, 'approval')} waiting
          </Link>
        )}
      </div>
      <code className="address small">{wallet.address}</code>
      <dl className="stats compact">
        <div>
          <dt>Balance</dt>
          <dd>{formatUsdc(wallet.balance)}</dd>
        </div>
        <div>
          <dt>Held</dt>
          <dd>{formatUsdc(wallet.heldBalance)}</dd>
        </div>
        <div>
          <dt>Daily cap left</dt>
          <dd>{formatCap(wallet.dailyCapRemaining)}</dd>
        </div>
        <div>
          <dt>Total cap left</dt>
          <dd>{formatCap(wallet.totalCapRemaining)}</dd>
        </div>
      </dl>
    </li>
  );
}

function CreateWalletForm() {
  const { api, cache } = useApp();
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
      addWallet(cache, await api.createAgentWallet(value));
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
