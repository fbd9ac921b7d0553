import type { ApiError } from '../api/errors.ts';
import { CopyButton } from './CopyButton.tsx';
import { ErrorMessage } from './ErrorMessage.tsx';

export function Loading({ what = 'Loading…' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      {what}
    </p>
  );
}

/** A failed load, in words, with a way to try again. */
export function LoadError({ error, onRetry }: { error: ApiError; onRetry: () => void }) {
  return (
    <div className="load-error">
      <ErrorMessage error={error} />
      <button type="button" className="button secondary small" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

export function AddressRow({
  address,
  testId,
  label = 'Address',
  copyLabel = 'Copy address',
}: {
  address: string;
  testId?: string;
  label?: string;
  copyLabel?: string;
}) {
  return (
    <div className="address-row">
      <span className="stat-label">{label}</span>
      <code className="address" data-testid={testId}>
        {address}
      </code>
      <CopyButton text={address} label={copyLabel} />
    </div>
  );
}

/** A one-line success note for screen readers and eyes alike. */
export function StatusNote({ text }: { text: string | null }) {
  return (
    <p className="status-note" role="status">
      {text ?? ''}
    </p>
  );
}
