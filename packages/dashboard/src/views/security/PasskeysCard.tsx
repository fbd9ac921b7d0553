// Passkeys: the list (remove one after confirming) and the form that adds one through the browser's WebAuthn.
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import type { Passkey } from '../../api/custody.ts';
import { useApp } from '../../app-context.ts';
import { LoadError, Loading, StatusNote } from '../../components/Common.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { TextField } from '../../components/TextField.tsx';
import { formatDateTime } from '../../format.ts';
import { K, markStale, STALE, updateData, useAction, useResource } from '../../queries.ts';
import { createPasskey } from '../../webauthn.ts';
import { useFactorChanged } from './factorChanged.ts';

const PASSKEY_LABEL_MAX = 100;

export function PasskeysCard({ enrolmentOnly }: { enrolmentOnly: boolean }) {
  const { client } = useApp();
  const qc = useQueryClient();
  const factorChanged = useFactorChanged();
  // While a required factor is missing the list is refused too (and there is nothing on it): not asked.
  const passkeys = useResource(
    enrolmentOnly ? null : K.passkeys,
    () => client.custody.passkeys(),
    STALE.security,
  );
  const [removing, setRemoving] = useState<Passkey | null>(null);
  const [note, setNote] = useState<string | null>(null);

  function put(change: (items: Passkey[]) => Passkey[]) {
    updateData<{ items: Passkey[] }>(qc, K.passkeys, (data) => ({ items: change(data.items) }));
  }

  const data = passkeys.data;
  return (
    <div className="subsection" data-testid="passkeys">
      <h3>Passkeys</h3>
      <p className="hint">
        A passkey lives on this device or your security key and is unlocked with your fingerprint, face or
        PIN. Nothing to type, and it cannot be phished.
      </p>
      {enrolmentOnly ? null : data === undefined ? (
        passkeys.error !== undefined ? (
          <LoadError error={passkeys.error} onRetry={passkeys.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No passkeys yet.</p>
      ) : (
        <ul className="rows" aria-label="Your passkeys" data-testid="passkey-list">
          {data.items.map((passkey) => (
            <li key={passkey.id} className="row passkey">
              <span className="wallet-name user-text">{passkey.label}</span>
              <span className="row-meta">
                Added {formatDateTime(passkey.createdAt)} · last used{' '}
                {passkey.lastUsedAt === null ? 'never' : formatDateTime(passkey.lastUsedAt)}
              </span>
              <button type="button" className="button secondary small" onClick={() => setRemoving(passkey)}>
                Remove<span className="visually-hidden"> passkey {passkey.label}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <StatusNote text={note} />
      <AddPasskeyForm
        onAdded={(passkey) => {
          put((items) => [...items.filter((item) => item.id !== passkey.id), passkey]);
          markStale(qc, K.passkeys);
          setNote(`The passkey “${passkey.label}” is added.`);
          factorChanged();
        }}
      />
      {removing !== null && (
        <ConfirmDialog
          title="Remove this passkey?"
          confirmLabel="Remove passkey"
          danger
          onConfirm={async () => {
            await client.custody.removePasskey(removing.id);
            put((items) => items.filter((item) => item.id !== removing.id));
            setNote(`The passkey “${removing.label}” is removed.`);
            factorChanged();
          }}
          onClose={() => setRemoving(null)}
        >
          <p>
            “<span className="user-text">{removing.label}</span>” can no longer be used to log in or to
            confirm actions. The passkey itself stays on its device until you delete it there.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function AddPasskeyForm({ onAdded }: { onAdded: (passkey: Passkey) => void }) {
  const { client } = useApp();
  const [label, setLabel] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);
  const trimmed = label.trim();
  const problem =
    trimmed === ''
      ? 'Name the passkey, e.g. “Work laptop”.'
      : trimmed.length > PASSKEY_LABEL_MAX
        ? `Use at most ${PASSKEY_LABEL_MAX} characters.`
        : null;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (problem !== null) return inputRef.current?.focus();
    const result: { added?: Passkey } = {};
    const error = await action.run(async () => {
      const options = await client.custody.passkeyRegistrationOptions();
      result.added = await client.custody.registerPasskey(trimmed, await createPasskey(options));
    });
    if (error === null && result.added !== undefined) {
      setLabel('');
      setSubmitted(false);
      onAdded(result.added);
    }
  }

  return (
    <form className="inline-form" onSubmit={onSubmit} noValidate aria-label="Add a passkey">
      <TextField
        label="Passkey name"
        value={label}
        onChange={setLabel}
        inputRef={inputRef}
        maxLength={PASSKEY_LABEL_MAX * 2}
        hint="To tell your passkeys apart, e.g. “Work laptop”."
        error={submitted ? problem : null}
      />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Waiting for the passkey…' : 'Add a passkey'}
      </button>
      <ErrorMessage error={action.error} />
    </form>
  );
}
