import { type FormEvent, useRef, useState } from 'react';
import type { ApiError } from '../api/errors.ts';
import type { AgentWallet, MasterWallet } from '../api/types.ts';
import { useApp } from '../app-context.ts';
import { AmountInput, amountError } from '../components/AmountInput.tsx';
import { AddressRow, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { applyMovement, applyWallet, K, useAction, useAgentWallet, usePeek } from '../data.ts';
import { walletName } from '../format.ts';
import { newIdempotencyKey } from '../ids.ts';
import { formatCap, formatUsdc } from '../money.ts';
import { agentPath, type WalletTab } from '../router.ts';
import { labelError } from './AgentWalletsView.tsx';
import { PendingApprovals } from './Approvals.tsx';
import { KeysPanel } from './KeysPanel.tsx';
import { PoliciesPanel } from './PoliciesPanel.tsx';
import { TransactionsPanel } from './TransactionsPanel.tsx';

const TAB_NAMES: Record<WalletTab, string> = {
  transactions: 'Transactions',
  approvals: 'Approvals',
  keys: 'API keys',
  policies: 'Policies',
};

export function AgentWalletView({ walletId, tab }: { walletId: string; tab: WalletTab }) {
  const { wallet, error } = useAgentWallet(walletId);
  const back = (
    <Link to="/agents" className="back-link">
      ← All agent wallets
    </Link>
  );
  if (wallet === undefined) {
    return (
      <>
        {back}
        <PageHeading title="Agent wallet">Agent wallet</PageHeading>
        {error !== undefined ? <ErrorMessage error={error} /> : <Loading />}
      </>
    );
  }
  const name = walletName(wallet.label);
  return (
    <>
      {back}
      <div className="title-row">
        <PageHeading title={name}>{name}</PageHeading>
        {wallet.frozen && <StatusTag status="frozen" />}
      </div>
      <section className="card" aria-label="Balances">
        <AddressRow address={wallet.address} testId="agent-address" />
        <dl className="stats">
          <div>
            <dt>Balance</dt>
            <dd data-testid="agent-balance">{formatUsdc(wallet.balance)}</dd>
          </div>
          <div>
            <dt>Held for approvals</dt>
            <dd>{formatUsdc(wallet.heldBalance)}</dd>
          </div>
          <div>
            <dt>Daily cap remaining</dt>
            <dd>{formatCap(wallet.dailyCapRemaining)}</dd>
          </div>
          <div>
            <dt>Total cap remaining</dt>
            <dd>{formatCap(wallet.totalCapRemaining)}</dd>
          </div>
          <div>
            <dt>Pending approvals</dt>
            <dd data-testid="agent-pending">{wallet.pendingApprovals}</dd>
          </div>
        </dl>
      </section>
      <section className="card" aria-labelledby="move-title">
        <h2 id="move-title">Move money</h2>
        <div className="two-columns">
          <MoveForm wallet={wallet} direction="fund" />
          <MoveForm wallet={wallet} direction="withdraw" />
        </div>
      </section>
      <section className="card" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <div className="two-columns">
          <RenameForm wallet={wallet} />
          <FreezeControl wallet={wallet} />
        </div>
      </section>
      <nav className="tabs" aria-label="Wallet sections">
        {(Object.keys(TAB_NAMES) as WalletTab[]).map((name) => (
          <Link
            key={name}
            to={agentPath(wallet.id, name)}
            className="tab"
            aria-current={name === tab ? 'page' : undefined}
            data-testid={`tab-${name}`}
          >
            {TAB_NAMES[name]}
            {name === 'approvals' && wallet.pendingApprovals > 0 && (
              <span className="count-badge">{wallet.pendingApprovals}</span>
            )}
          </Link>
        ))}
      </nav>
      <section className="card panel" aria-label={TAB_NAMES[tab]}>
        {tab === 'transactions' && <TransactionsPanel wallet={wallet} />}
        {tab === 'approvals' && <PendingApprovals wallet={wallet} headingLevel={2} />}
        {tab === 'keys' && <KeysPanel wallet={wallet} />}
        {tab === 'policies' && <PoliciesPanel wallet={wallet} />}
      </section>
    </>
  );
}

/**
 * Fund (master -> agent) or withdraw (agent -> master). Each submission carries an Idempotency-Key; the key
 * is kept for a retry of the same amount after an unknown outcome (network error, 429, 5xx) so a retry can
 * never move the money twice, and replaced after a success, a definite refusal or a changed amount.
 */
function MoveForm({ wallet, direction }: { wallet: AgentWallet; direction: 'fund' | 'withdraw' }) {
  const { api, cache } = useApp();
  const master = usePeek<MasterWallet>(K.master);
  const [amount, setAmount] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const attempt = useRef<{ key: string; amount: string } | null>(null);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);
  const fund = direction === 'fund';
  const max = fund ? master?.balance : wallet.balance;
  const maxLabel = fund ? 'the master wallet balance' : "this wallet's available balance";

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    if (amountError(amount, max, maxLabel) !== null) return inputRef.current?.focus();
    const value = amount.trim();
    if (attempt.current === null || attempt.current.amount !== value) {
      attempt.current = { key: newIdempotencyKey(), amount: value };
    }
    const key = attempt.current.key;
    const error: ApiError | null = await action.run(async () => {
      applyMovement(cache, await api.move(wallet.id, direction, value, key));
    });
    if (error === null || !error.retryable) attempt.current = null;
    if (error === null) {
      setAmount('');
      setSubmitted(false);
      setNote(
        fund
          ? `Moved ${formatUsdc(value)} into this wallet.`
          : `Moved ${formatUsdc(value)} back to the master wallet.`,
      );
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="stack-form" aria-label={fund ? 'Fund' : 'Withdraw'}>
      <AmountInput
        label={fund ? 'Fund from master wallet' : 'Withdraw to master wallet'}
        value={amount}
        onChange={setAmount}
        showError={submitted}
        max={max}
        maxLabel={maxLabel}
        hint={max !== undefined ? `Available: ${formatUsdc(max)}` : undefined}
        inputRef={inputRef}
      />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Working…' : fund ? 'Fund' : 'Withdraw'}
      </button>
      <ErrorMessage error={action.error} />
      <StatusNote text={note} />
    </form>
  );
}

function RenameForm({ wallet }: { wallet: AgentWallet }) {
  const { api, cache } = useApp();
  const [label, setLabel] = useState(wallet.label ?? '');
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  const error = labelError(label);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    if (error !== null) return;
    const value = label.trim();
    const failed = await action.run(async () => {
      applyWallet(cache, await api.renameAgentWallet(wallet.id, value));
    });
    if (failed === null) {
      setSubmitted(false);
      setNote('Label saved.');
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="stack-form" aria-label="Rename">
      <TextField
        label="Wallet label"
        value={label}
        onChange={setLabel}
        error={submitted ? error : null}
        maxLength={200}
        autoComplete="off"
      />
      <button
        type="submit"
        className="button secondary"
        disabled={action.busy || label.trim() === wallet.label}
      >
        {action.busy ? 'Saving…' : 'Rename'}
      </button>
      <ErrorMessage error={action.error} />
      <StatusNote text={note} />
    </form>
  );
}

function FreezeControl({ wallet }: { wallet: AgentWallet }) {
  const { api, cache } = useApp();
  const [confirming, setConfirming] = useState(false);
  const name = walletName(wallet.label);
  const freeze = !wallet.frozen;
  return (
    <div className="stack-form">
      <p className="field-like-label">Agent access</p>
      <p className="hint">
        {wallet.frozen
          ? 'Frozen: the agent cannot send payments or ask for approvals. Reads still work.'
          : 'Active: the agent can pay within its policies.'}
      </p>
      <button
        type="button"
        className={`button ${freeze ? 'danger' : 'secondary'}`}
        onClick={() => setConfirming(true)}
      >
        {freeze ? 'Freeze wallet' : 'Unfreeze wallet'}
      </button>
      {confirming && (
        <ConfirmDialog
          title={freeze ? `Freeze “${name}”?` : `Unfreeze “${name}”?`}
          confirmLabel={freeze ? 'Freeze' : 'Unfreeze'}
          danger={freeze}
          onClose={() => setConfirming(false)}
          onConfirm={async () => applyWallet(cache, await api.setFrozen(wallet.id, freeze))}
        >
          {freeze ? (
            <p>
              Every API key of this wallet will be refused for payments and approval requests until you
              unfreeze it. Checking the balance and history keeps working, and you can still fund, withdraw,
              approve and reject.
            </p>
          ) : (
            <p>The agent will be able to send payments again, within its policies.</p>
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}
