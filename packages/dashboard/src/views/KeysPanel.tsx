import type {
  AgentWallet,
  ApiKey,
  CreatedApiKey as CreatedKey,
  Page,
  RotatedApiKey as RotatedKey,
  Scope,
} from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime } from '../format.ts';
import { K, type ResourceState, STALE, updateData, useAction, useResource } from '../queries.ts';
import { labelError } from './AgentWalletsView.tsx';
import { connectedAppName, isConnectedApp, type ListedKey } from './connections.ts';

const SCOPE_CHOICES: { value: string; scopes: Scope[]; title: string; detail: string }[] = [
  {
    value: 'read,write',
    scopes: ['read', 'write'],
    title: 'Read and write',
    detail: 'check balance and history, send payments, ask for approval',
  },
  { value: 'read', scopes: ['read'], title: 'Read only', detail: 'check balance and history' },
  { value: 'write', scopes: ['write'], title: 'Write only', detail: 'send payments and ask for approval' },
];

export const GRACE_CHOICES: { seconds: number; title: string }[] = [
  { seconds: 0, title: 'Immediately' },
  { seconds: 300, title: 'After 5 minutes' },
  { seconds: 3600, title: 'After 1 hour (default)' },
  { seconds: 86_400, title: 'After 24 hours' },
  { seconds: 604_800, title: 'After 7 days (longest)' },
];

/** The listing view of a key just created (the listing never has the key itself). */
function listedKey(created: CreatedKey): ApiKey {
  return {
    id: created.id,
    type: 'api_key',
    clientName: null,
    prefix: created.prefix,
    label: created.label,
    scopes: created.scopes,
    walletId: created.walletId,
    status: 'active',
    createdAt: created.createdAt,
    expiresAt: created.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
    rotatedToKeyId: null,
  };
}

interface ShownKey {
  created: CreatedKey;
  previous?: ApiKey;
}

/** Changes the cached key list in place (a key added, revoked or rotated): no request to list them again. */
function useKeysUpdate(walletId: string) {
  const qc = useQueryClient();
  return (change: (items: ApiKey[]) => ApiKey[], added = 0) =>
    updateData<Page<ApiKey>>(qc, K.keys(walletId), (page) => ({
      ...page,
      items: change(page.items),
      total: page.total + added,
    }));
}

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

function KeyList({
  keys,
  onRevoke,
  onRotate,
}: {
  keys: ResourceState<Page<ApiKey>>;
  onRevoke: (key: ApiKey) => void;
  onRotate: (key: ApiKey) => void;
}) {
  const data = keys.data;
  if (data === undefined) {
    return keys.error !== undefined ? <LoadError error={keys.error} onRetry={keys.reload} /> : <Loading />;
  }
  if (data.items.length === 0) return <p className="empty">No keys or connected apps yet.</p>;
  return (
    <ul className="key-list" data-testid="key-list">
      {data.items.map((key) =>
        isConnectedApp(key) ? (
          <ConnectedAppItem key={key.id} connection={key} onRevoke={onRevoke} />
        ) : (
          <KeyItem key={key.id} apiKey={key} onRevoke={onRevoke} onRotate={onRotate} />
        ),
      )}
    </ul>
  );
}

function RevokeDialog({
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

function KeyItem({
  apiKey,
  onRevoke,
  onRotate,
}: {
  apiKey: ApiKey;
  onRevoke: (key: ApiKey) => void;
  onRotate: (key: ApiKey) => void;
}) {
  const mayManage = useCan()('manageKeys');
  return (
    <li className="key-item" data-testid="key-item" data-status={apiKey.status}>
      <div className="key-head">
        <span className="key-label user-text">{apiKey.label}</span>
        <StatusTag status={apiKey.status} />
      </div>
      <dl className="tx-meta">
        <div>
          <dt>Key</dt>
          <dd>
            <code>{apiKey.prefix}…</code>
          </dd>
        </div>
        <div>
          <dt>Scopes</dt>
          <dd>{apiKey.scopes.join(', ')}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(apiKey.createdAt)}</dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{apiKey.lastUsedAt === null ? 'Never' : formatDateTime(apiKey.lastUsedAt)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{apiKey.expiresAt === null ? 'Never' : formatDateTime(apiKey.expiresAt)}</dd>
        </div>
        {apiKey.status === 'rotating' && (
          <div>
            <dt>Stops working</dt>
            <dd>{formatDateTime(apiKey.revokedAt)}</dd>
          </div>
        )}
        {apiKey.status === 'revoked' && (
          <div>
            <dt>Revoked</dt>
            <dd>{formatDateTime(apiKey.revokedAt)}</dd>
          </div>
        )}
      </dl>
      {mayManage && (apiKey.status === 'active' || apiKey.status === 'rotating') && (
        <div className="actions">
          {apiKey.status === 'active' && (
            <button type="button" className="button secondary small" onClick={() => onRotate(apiKey)}>
              Rotate
            </button>
          )}
          <button type="button" className="button secondary small" onClick={() => onRevoke(apiKey)}>
            {apiKey.status === 'rotating' ? 'Revoke now' : 'Revoke'}
          </button>
        </div>
      )}
    </li>
  );
}

/**
 * An app connected by OAuth: known by its name, with what it may do and when it last acted. Revoke ends its
 * tokens at once; there is no Rotate (the app renews its own tokens) and no key prefix to look for.
 */
function ConnectedAppItem({
  connection,
  onRevoke,
}: {
  connection: ListedKey;
  onRevoke: (key: ApiKey) => void;
}) {
  const mayManage = useCan()('manageKeys');
  const name = connectedAppName(connection);
  return (
    <li className="key-item" data-testid="connected-app" data-status={connection.status}>
      <div className="key-head">
        <span className="key-label">
          Connected app: <span className="user-text">{name}</span>
        </span>
        <StatusTag status={connection.status} />
      </div>
      <dl className="tx-meta">
        <div>
          <dt>Scopes</dt>
          <dd>{connection.scopes.join(', ')}</dd>
        </div>
        <div>
          <dt>Connected</dt>
          <dd>{formatDateTime(connection.createdAt)}</dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{connection.lastUsedAt === null ? 'Never' : formatDateTime(connection.lastUsedAt)}</dd>
        </div>
        {connection.status === 'revoked' && (
          <div>
            <dt>Revoked</dt>
            <dd>{formatDateTime(connection.revokedAt)}</dd>
          </div>
        )}
      </dl>
      {mayManage && connection.status === 'active' && (
        <div className="actions">
          <button type="button" className="button secondary small" onClick={() => onRevoke(connection)}>
            Revoke
          </button>
        </div>
      )}
    </li>
  );
}

/** End of the chosen day, local time, as ISO-8601 UTC; null when the date is not valid or already past. */
export function expiryFromDate(date: string, now = Date.now()): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const end = new Date(`${date}T23:59:59.999`);
  if (Number.isNaN(end.getTime()) || end.getTime() <= now) return null;
  return end.toISOString();
}

function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function CreateKeyForm({ wallet, onCreated }: { wallet: AgentWallet; onCreated: (key: CreatedKey) => void }) {
  const { sdk } = useApp();
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState('read,write');
  const [expiry, setExpiry] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const labelRef = useRef<HTMLInputElement>(null);
  const expiryId = useId();
  const labelProblem = labelError(label);
  const expiryProblem =
    expiry !== '' && expiryFromDate(expiry) === null ? 'Choose a date from today on.' : null;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (labelProblem !== null) return labelRef.current?.focus();
    if (expiryProblem !== null) return document.getElementById(expiryId)?.focus();
    const choice = SCOPE_CHOICES.find((c) => c.value === scope) ?? SCOPE_CHOICES[0]!;
    const expiresAt = expiry === '' ? undefined : (expiryFromDate(expiry) ?? undefined);
    const failed = await action.run(async () => {
      onCreated(await sdk.keys.create(wallet.id, { label: label.trim(), scopes: choice.scopes, expiresAt }));
    });
    if (failed === null) {
      setLabel('');
      setExpiry('');
      setSubmitted(false);
    }
  }

  return (
    <form className="create-key" onSubmit={onSubmit} noValidate aria-label="Create an API key">
      <h3>Create a key</h3>
      <TextField
        label="Key label"
        value={label}
        onChange={setLabel}
        inputRef={labelRef}
        error={submitted ? labelProblem : null}
        hint="Which agent or environment uses it, e.g. production."
        maxLength={200}
        autoComplete="off"
      />
      <ScopeChoices scope={scope} onChange={setScope} />
      <ExpiryField
        id={expiryId}
        value={expiry}
        onChange={setExpiry}
        error={submitted ? expiryProblem : null}
      />
      <ErrorMessage error={action.error} />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}

function ScopeChoices({ scope, onChange }: { scope: string; onChange: (scope: string) => void }) {
  const name = useId();
  return (
    <fieldset className="field">
      <legend>Scopes</legend>
      {SCOPE_CHOICES.map((choice) => (
        <label key={choice.value} className="radio">
          <input
            type="radio"
            name={name}
            value={choice.value}
            checked={scope === choice.value}
            onChange={() => onChange(choice.value)}
          />
          <span>
            <strong>{choice.title}</strong> — {choice.detail}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function ExpiryField({
  id,
  value,
  onChange,
  error,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  error: string | null;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Expires on (optional)</label>
      <input
        id={id}
        type="date"
        value={value}
        min={today()}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error !== null ? true : undefined}
        aria-describedby={`${id}-hint${error !== null ? ` ${id}-error` : ''}`}
      />
      <p className="hint" id={`${id}-hint`}>
        The key stops working at the end of that day. Leave empty for a key that does not expire.
      </p>
      {error !== null && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

function RotateDialog({
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
      <ErrorMessage error={action.error} />
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="button primary" onClick={rotate} disabled={action.busy}>
          {action.busy ? 'Rotating…' : 'Rotate key'}
        </button>
      </div>
    </Dialog>
  );
}

/** The key, once: copy it now or never. Closing forgets it. */
function KeyShownOnce({ shown, onClose }: { shown: ShownKey; onClose: () => void }) {
  const warningId = useId();
  const inputId = useId();
  const { created, previous } = shown;
  return (
    <Dialog title="Copy your new API key" onClose={onClose} describedBy={warningId} className="key-dialog">
      <p className="warning" id={warningId} data-testid="key-warning">
        <strong>This key is shown only once.</strong> It will never be shown again: only a hash of it is
        stored. Copy it now and keep it somewhere safe; if you lose it, rotate it or create a new one.
      </p>
      <div className="field">
        <label htmlFor={inputId}>API key “{created.label}”</label>
        <div className="key-value">
          <input
            id={inputId}
            className="secret"
            readOnly
            value={created.key}
            data-testid="new-key-value"
            onFocus={(event) => event.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <CopyButton text={created.key} label="Copy API key" autoFocus />
        </div>
      </div>
      <dl className="tx-meta">
        <div>
          <dt>Scopes</dt>
          <dd>{created.scopes.join(', ')}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{created.expiresAt === null ? 'Never' : formatDateTime(created.expiresAt)}</dd>
        </div>
      </dl>
      {previous !== undefined && (
        <p className="notice" data-testid="rotation-note">
          The old key <code>{previous.prefix}…</code>{' '}
          {previous.revokedAt !== null && Date.parse(previous.revokedAt) > Date.now()
            ? `keeps working until ${formatDateTime(previous.revokedAt)}.`
            : 'has stopped working.'}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onClose}>
          I have stored the key
        </button>
      </div>
    </Dialog>
  );
}
