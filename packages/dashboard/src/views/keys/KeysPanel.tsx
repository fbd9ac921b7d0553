// An agent wallet's API keys tab: the keys and connected apps, the form that creates a key, and the dialogs
// that revoke, rotate and show a key once. One part a file, in this folder; this file assembles them.
import type { AgentWallet, ApiKey, CreatedApiKey as CreatedKey } from '@agent-wallet/sdk';
import { useState } from 'react';
import { FULL_LIST_LIMIT } from '../../api/wire.ts';
import { useApp, useCan } from '../../app-context.ts';
import { StatusNote } from '../../components/Common.tsx';
import { K, STALE, useResource } from '../../queries.ts';
import { connectedAppName, isConnectedApp } from '../connections.ts';
import { CreateKeyForm } from './CreateKeyForm.tsx';
import { KeyList } from './KeyList.tsx';
import { KeyShownOnce } from './KeyShownOnce.tsx';
import { listedKey, type ShownKey, useKeysUpdate } from './keysCache.ts';
import { RevokeDialog } from './RevokeDialog.tsx';
import { RotateDialog } from './RotateDialog.tsx';

export function KeysPanel({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const keys = useResource(
    K.keys(wallet.id),
    () => sdk.keys.list(wallet.id, { limit: FULL_LIST_LIMIT }),
    STALE.details,
  );
  const [shown, setShown] = useState<ShownKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const putKeys = useKeysUpdate(wallet.id);
  const mayManage = useCan()('manageKeys');

  function onCreated(created: CreatedKey) {
    putKeys((items) => [listedKey(created), ...items], 1);
    setShown({ created });
  }

  return (
    <>
      <div className="panel-head">
        <h2>API keys</h2>
      </div>
      <p className="hint">
        An agent sends its key as <code>Authorization: Bearer svc_live_…</code> to the tool API. A key works
        only for this wallet, within its scopes. Apps you allowed by signing in (claude.ai, ChatGPT, Claude
        Code…) are listed here too, as connected apps.
      </p>
      {mayManage && <CreateKeyForm wallet={wallet} onCreated={onCreated} />}
      <StatusNote text={note} />
      <KeyList keys={keys} onRevoke={setRevoking} onRotate={setRotating} />
      {revoking !== null && (
        <RevokeDialog
          apiKey={revoking}
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            const revoked = await sdk.keys.revoke(wallet.id, revoking.id);
            putKeys((items) => items.map((item) => (item.id === revoked.id ? revoked : item)));
            setNote(
              isConnectedApp(revoking)
                ? `The connection of “${connectedAppName(revoking)}” is revoked.`
                : `The key “${revoked.label}” (${revoked.prefix}…) is revoked.`,
            );
          }}
        />
      )}
      {rotating !== null && (
        <RotateDialog
          wallet={wallet}
          apiKey={rotating}
          onClose={() => setRotating(null)}
          onRotated={(rotated) => {
            const { previousKey, ...created } = rotated;
            putKeys(
              (items) => [
                listedKey(created),
                ...items.map((item) => (item.id === previousKey.id ? previousKey : item)),
              ],
              1,
            );
            setRotating(null);
            setShown({ created, previous: previousKey });
          }}
        />
      )}
      {shown !== null && <KeyShownOnce shown={shown} onClose={() => setShown(null)} />}
    </>
  );
}
