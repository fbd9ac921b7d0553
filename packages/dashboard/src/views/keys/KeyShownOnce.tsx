// A new key, shown once.
import { useId } from 'react';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { formatDateTime } from '../../format.ts';
import type { ShownKey } from './keysCache.ts';

/** The key, once: copy it now or never. Closing forgets it. */
export function KeyShownOnce({ shown, onClose }: { shown: ShownKey; onClose: () => void }) {
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
