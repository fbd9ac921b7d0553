// One agent wallet. It opens on what a person comes to see — the money, how much of each cap is used, spending
// over the last 30 days and the transactions — while moving money is an action (a dialog) and keys, policies
// settings (with the wallet's alerts), and how to connect an agent are tabs.
import type { AgentWallet } from '@agent-wallet/sdk';
import { useState } from 'react';
import { shortAddress } from '../address.ts';
import { useApp, useCan } from '../app-context.ts';
import { Loading } from '../components/Common.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Link } from '../components/Link.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { walletName } from '../format.ts';
import { formatUsdc } from '../money.ts';
import { useAgentWallet } from '../queries.ts';
import { agentPath, type WalletTab } from '../router.ts';
import { ActivityPanel } from './ActivityPanel.tsx';
import { AlertsCard } from './AlertsCard.tsx';
import { PendingApprovals } from './Approvals.tsx';
import { ConnectPanel } from './ConnectPanel.tsx';
import { KeysPanel } from './keys/KeysPanel.tsx';
import { MoveForm } from './MoveMoney.tsx';
import { PoliciesPanel } from './policies/PoliciesPanel.tsx';
import { SettingsPanel } from './SettingsPanel.tsx';

const TAB_NAMES: Record<WalletTab, string> = {
  activity: 'Activity',
  approvals: 'Approvals',
  keys: 'API keys',
  policies: 'Policies',
  connect: 'Connect your agent',
  settings: 'Settings',
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
  return (
    <>
      {back}
      <WalletHeader wallet={wallet} />
      <Balances wallet={wallet} />
      <WalletTabs wallet={wallet} tab={tab} />
      <section className="panel" aria-label={TAB_NAMES[tab]}>
        <TabPanel wallet={wallet} tab={tab} />
      </section>
    </>
  );
}

/** The wallet's name (its page title), whether it is frozen, "Move money", and its address to copy. */
function WalletHeader({ wallet }: { wallet: AgentWallet }) {
  const name = walletName(wallet.label);
  return (
    <>
      <div className="title-row">
        <PageHeading title={name}>{name}</PageHeading>
        {wallet.frozen && <StatusTag status="frozen" />}
        <WalletActions wallet={wallet} />
      </div>
      <p className="wallet-address">
        <code className="address" title={wallet.address} data-testid="agent-address">
          {shortAddress(wallet.address)}
        </code>
        <CopyButton text={wallet.address} label="Copy wallet address" />
      </p>
    </>
  );
}

function Balances({ wallet }: { wallet: AgentWallet }) {
  return (
    <dl className="stats headline" aria-label="Balances">
      <div>
        <dt>Balance</dt>
        <dd data-testid="agent-balance">{formatUsdc(wallet.balance)}</dd>
      </div>
      <div>
        <dt>Held for approvals</dt>
        <dd data-testid="agent-held">{formatUsdc(wallet.heldBalance)}</dd>
      </div>
      <div>
        <dt>Waiting approvals</dt>
        <dd data-testid="agent-pending">
          {wallet.pendingApprovals > 0 ? (
            <Link to={agentPath(wallet.id, 'approvals')}>{wallet.pendingApprovals}</Link>
          ) : (
            0
          )}
        </dd>
      </div>
    </dl>
  );
}

function WalletTabs({ wallet, tab }: { wallet: AgentWallet; tab: WalletTab }) {
  return (
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
  );
}

function TabPanel({ wallet, tab }: { wallet: AgentWallet; tab: WalletTab }) {
  switch (tab) {
    case 'activity':
      return <ActivityPanel wallet={wallet} />;
    case 'approvals':
      return (
        <div className="card">
          <PendingApprovals wallet={wallet} headingLevel={2} />
        </div>
      );
    case 'keys':
      return <KeysPanel wallet={wallet} />;
    case 'policies':
      return <PoliciesPanel wallet={wallet} />;
    case 'connect':
      return <ConnectPanel wallet={wallet} />;
    case 'settings':
      return (
        <>
          <SettingsPanel wallet={wallet} />
          <AlertsCard walletId={wallet.id} agent />
        </>
      );
  }
}

/** "Move money": fund from or withdraw to the master wallet, in a dialog over the activity. */
function WalletActions({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const [open, setOpen] = useState(false);
  if (!useCan()('moveMoney')) return null;
  return (
    <div className="title-actions">
      <button type="button" className="button primary" onClick={() => setOpen(true)}>
        Move money
      </button>
      {open && (
        <Dialog title={`Move money: ${walletName(wallet.label)}`} onClose={() => setOpen(false)}>
          <p className="hint">Between this wallet and your master wallet, at once.</p>
          <div className="two-columns">
            <MoveForm sdk={sdk} wallet={wallet} direction="fund" />
            <MoveForm sdk={sdk} wallet={wallet} direction="withdraw" />
          </div>
          <div className="dialog-actions">
            <button type="button" className="button secondary" onClick={() => setOpen(false)}>
              Done
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
