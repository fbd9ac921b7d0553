// A wallet's settings: its label, and whether its agent may pay (freeze). Both reversible: no red here.
import type { AgentWallet } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApp, useCan } from '../app-context.ts';
import { StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { TextField } from '../components/TextField.tsx';
import { walletName } from '../format.ts';
import { applyWallet, useAction } from '../queries.ts';
import { labelError } from './AgentWalletsView.tsx';

export function SettingsPanel({ wallet }: { wallet: AgentWallet }) {
  const mayEdit = useCan()('editWallet');
  if (!mayEdit) {
    return (
      <div className="card" data-testid="settings-read-only">
        <h2>Settings</h2>
        <p>
          Label: <span className="user-text">{walletName(wallet.label)}</span>.{' '}
          {wallet.frozen ? 'Frozen: its agent cannot pay.' : 'Not frozen: its agent can pay.'}
        </p>
        <p className="hint">Your role can see these settings; an admin or an owner can change them.</p>
      </div>
    );
  }
  return (
    <div className="card">
      <h2>Settings</h2>
      <div className="two-columns">
        <RenameForm wallet={wallet} />
        <FreezeControl wallet={wallet} />
      </div>
    </div>
  );
}

function RenameForm({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const qc = useQueryClient();
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
      applyWallet(qc, await sdk.agentWallets.rename(wallet.id, value));
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
  return (
    <div className="stack-form">
      <p className="field-like-label">Agent access</p>
      <p className="hint">
        {wallet.frozen
          ? 'Frozen: the agent cannot send payments or ask for approvals. Reads still work.'
          : 'Active: the agent can pay within its policies. Freezing stops that at once, until you unfreeze.'}
      </p>
      <FreezeButton wallet={wallet} />
    </div>
  );
}

/**
 * "Freeze wallet" or "Unfreeze wallet" with its confirmation (the settings tab, and the frozen banner over the
 * caps). The caller decides whether the role may (editWallet).
 */
export function FreezeButton({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const name = walletName(wallet.label);
  const freeze = !wallet.frozen;
  return (
    <>
      <button type="button" className="button secondary" onClick={() => setConfirming(true)}>
        {freeze ? 'Freeze wallet' : 'Unfreeze wallet'}
      </button>
      {confirming && (
        <ConfirmDialog
          title={freeze ? `Freeze “${name}”?` : `Unfreeze “${name}”?`}
          confirmLabel={freeze ? 'Freeze' : 'Unfreeze'}
          onClose={() => setConfirming(false)}
          onConfirm={async () =>
            applyWallet(
              qc,
              freeze ? await sdk.agentWallets.freeze(wallet.id) : await sdk.agentWallets.unfreeze(wallet.id),
            )
          }
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
    </>
  );
}
