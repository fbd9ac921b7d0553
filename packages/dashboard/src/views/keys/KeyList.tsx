// The wallet's keys and connected apps, each with what may be done to it.
import type { ApiKey, Page } from '@agent-wallet/sdk';
import { useCan } from '../../app-context.ts';
import { LoadError, Loading } from '../../components/Common.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { formatDateTime } from '../../format.ts';
import type { ResourceState } from '../../queries.ts';
import { connectedAppName, isConnectedApp, type ListedKey } from '../connections.ts';

export function KeyList({
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
