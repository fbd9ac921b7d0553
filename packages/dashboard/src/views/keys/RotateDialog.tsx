// Rotating a key: a new key, the old one working on for a grace period.
import type { AgentWallet, ApiKey, RotatedApiKey as RotatedKey } from '@agent-wallet/sdk';
import { useId, useState } from 'react';
import { useApp } from '../../app-context.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { DialogActions } from '../../components/DialogActions.tsx';
import { useAction } from '../../queries.ts';

export const GRACE_CHOICES: { seconds: number; title: string }[] = [
  { seconds: 0, title: 'Immediately' },
  { seconds: 300, title: 'After 5 minutes' },
  { seconds: 3600, title: 'After 1 hour (default)' },
  { seconds: 86_400, title: 'After 24 hours' },
  { seconds: 604_800, title: 'After 7 days (longest)' },
];

export function RotateDialog({
  wallet,
  apiKey,
  onClose,
  onRotated,
}: {
  wallet: AgentWallet;
  apiKey: ApiKey;
  onClose: () => void;
  onRotated: (rotated: RotatedKey) => void;
}) {
  const { sdk } = useApp();
  const [grace, setGrace] = useState(3600);
  const action = useAction();
  const graceId = useId();
  async function rotate() {
    await action.run(async () =>
      onRotated(await sdk.keys.rotate(wallet.id, apiKey.id, { gracePeriodSeconds: grace })),
    );
  }
  return (
    <Dialog title={`Rotate the key “${apiKey.label}”?`} onClose={onClose}>
      <p>
        You get a new key with the same label and scopes. The old key (<code>{apiKey.prefix}…</code>) keeps
        working for the grace period, so you can switch your agent over without downtime.
      </p>
      <div className="field">
        <label htmlFor={graceId}>Old key stops working</label>
        <select id={graceId} value={grace} onChange={(event) => setGrace(Number(event.target.value))}>
          {GRACE_CHOICES.map((choice) => (
            <option key={choice.seconds} value={choice.seconds}>
              {choice.title}
            </option>
          ))}
        </select>
      </div>
      <DialogActions
        action={action}
        label="Rotate key"
        busyLabel="Rotating…"
        onAct={rotate}
        onCancel={onClose}
      />
    </Dialog>
  );
}
