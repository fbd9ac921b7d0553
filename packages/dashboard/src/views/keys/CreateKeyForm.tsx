// The form that creates a key: its label, scopes and expiry.
import type { AgentWallet, CreatedApiKey as CreatedKey, Scope } from '@agent-wallet/sdk';
import { type FormEvent, useId, useRef, useState } from 'react';
import { useApp } from '../../app-context.ts';
import { ErrorMessage } from '../../components/ErrorMessage.tsx';
import { TextField } from '../../components/TextField.tsx';
import { useAction } from '../../queries.ts';
import { labelError } from '../AgentWalletsView.tsx';

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

export function CreateKeyForm({
  wallet,
  onCreated,
}: {
  wallet: AgentWallet;
  onCreated: (key: CreatedKey) => void;
}) {
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
