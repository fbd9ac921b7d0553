// Revoking a key or a connected app, after confirming.
import type { ApiKey } from '@agent-wallet/sdk';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { connectedAppName, isConnectedApp } from '../connections.ts';

export function RevokeDialog({
  apiKey,
  onClose,
  onConfirm,
}: {
  apiKey: ApiKey;
  onClose: () => void;
  onConfirm: () => Promise<void>;
}) {
  if (isConnectedApp(apiKey)) {
    const name = connectedAppName(apiKey);
    return (
      <ConfirmDialog
        title={`Revoke the connection of “${name}”?`}
        confirmLabel="Revoke access"
        danger
        onClose={onClose}
        onConfirm={onConfirm}
      >
        <p>
          {name} is refused from its next request on. To use this wallet again, it has to be connected again
          from the app. This cannot be undone.
        </p>
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog
      title={`Revoke the key “${apiKey.label}”?`}
      confirmLabel="Revoke key"
      danger
      onClose={onClose}
      onConfirm={onConfirm}
    >
      <p>
        Agents using <code>{apiKey.prefix}…</code> are refused from their next request on. This cannot be
        undone.
      </p>
    </ConfirmDialog>
  );
}
