// A new key, shown once.
import { ShownOnce } from '../../components/ShownOnce.tsx';
import { formatDateTime } from '../../format.ts';
import type { ShownKey } from './keysCache.ts';

/** The key, once: copy it now or never. Closing forgets it. */
export function KeyShownOnce({ shown, onClose }: { shown: ShownKey; onClose: () => void }) {
  const { created, previous } = shown;
  return (
    <ShownOnce
      title="Copy your new API key"
      warning={
        <>
          <strong>This key is shown only once.</strong> It will never be shown again: only a hash of it is
          stored. Copy it now and keep it somewhere safe; if you lose it, rotate it or create a new one.
        </>
      }
      warningTestId="key-warning"
      label={<>API key “{created.label}”</>}
      value={created.key}
      valueTestId="new-key-value"
      copyLabel="Copy API key"
      doneLabel="I have stored the key"
      onClose={onClose}
    >
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
    </ShownOnce>
  );
}
