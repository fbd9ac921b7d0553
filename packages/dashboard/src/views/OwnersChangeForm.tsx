// The Treasury card's "Change owners" (members with the owner role, a bounded treasury's multisig account): every
// owner after the change, one address per row, and how many of them must sign. Sent, it is a request of the
// owners' account like a withdrawal: the owners the account has now sign it in the list above
// (OwnersRequests.tsx), and only once it is confirmed do the new owners count. Asking needs a fresh proof of
// presence: the HTTP adapter (api/client.ts) holds the STEP_UP_REQUIRED refusal while the app's step-up dialog
// asks, then sends the same request again. What was asked is said below the button until the owners' list (which
// polls while a request waits) shows the request moved on: from then on its row there says where it stands.
import type { TreasuryView } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type ApiError, toApiError } from '../api/errors.ts';
import type { OwnersChangeAnswer, OwnersRequest } from '../api/treasury.ts';
import { useApp, useCan } from '../app-context.ts';
import { StatusNote } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { TextField } from '../components/TextField.tsx';
import { K, usePeek } from '../queries.ts';
import {
  checkOwnersChange,
  draftOf,
  OWNERS_MAX,
  type OwnersDraft,
  offersOwnersChange,
  ownersChangeAskedWords,
} from './ownersChange.ts';

export function OwnersChange({ view }: { view: TreasuryView }) {
  const mayChange = useCan()('changeTreasuryOwners');
  const [open, setOpen] = useState(false);
  const [asked, setAsked] = useState<OwnersChangeAnswer | null>(null);
  const listed = usePeek<OwnersRequest[]>(K.ownersRequests)?.find((r) => r.id === asked?.id);
  // Said while the list shows the request as the answer left it (or does not show it yet), not once it moved on.
  const note =
    asked !== null && (listed === undefined || listed.status === asked.status)
      ? ownersChangeAskedWords(asked)
      : null;
  if (!mayChange || !offersOwnersChange(view)) return null;
  return (
    <div className="owners-change">
      {open ? (
        <OwnersChangeForm
          view={view}
          onClose={() => setOpen(false)}
          onAsked={(answer) => {
            setOpen(false);
            setAsked(answer);
          }}
        />
      ) : (
        <button
          type="button"
          className="button secondary"
          onClick={() => {
            setAsked(null);
            setOpen(true);
          }}
          data-testid="change-owners"
        >
          Change owners
        </button>
      )}
      <StatusNote text={note} />
    </div>
  );
}

function OwnersChangeForm(props: {
  view: TreasuryView;
  onClose: () => void;
  onAsked: (answer: OwnersChangeAnswer) => void;
}) {
  const { client } = useApp();
  const qc = useQueryClient();
  // Prefilled once: the view refreshing underneath does not overwrite what the owner is typing.
  const [draft, setDraft] = useState<OwnersDraft>(() => draftOf(props.view));
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const check = checkOwnersChange(draft, props.view.account);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setRefusal(null);
    if (check.change === null) return;
    setBusy(true);
    try {
      const answer = await client.treasury.changeOwners(check.change.owners, check.change.threshold);
      await qc.invalidateQueries({ queryKey: K.ownersRequests });
      props.onAsked(answer);
    } catch (error) {
      setRefusal(toApiError(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="stack-form owners-change-form"
      aria-label="Change the owners"
      data-testid="owners-change-form"
      onSubmit={(event) => void submit(event)}
      noValidate
    >
      <OwnerRows
        draft={draft}
        errors={submitted ? check.rowErrors : []}
        onChange={(rows) => setDraft({ ...draft, rows })}
      />
      {submitted && check.listError !== null && <p className="field-error">{check.listError}</p>}
      <TextField
        label="Owners who must sign a change"
        inputMode="numeric"
        value={draft.threshold}
        onChange={(threshold) => setDraft({ ...draft, threshold })}
        hint={`From 1 to ${Math.max(draft.rows.length, 1)}. Until this change is confirmed, the current owners sign at the current threshold.`}
        error={submitted ? check.thresholdError : null}
        data-testid="owners-change-threshold"
      />
      <ErrorMessage error={refusal} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Asking…' : 'Ask the owners to sign this change'}
        </button>
        <button type="button" className="button secondary" onClick={props.onClose} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** One address per row, each removable (one row at least), and a row to add up to the limit. */
function OwnerRows(props: {
  draft: OwnersDraft;
  errors: (string | null)[];
  onChange: (rows: string[]) => void;
}) {
  const { rows } = props.draft;
  return (
    <fieldset className="field owners-change-rows">
      <legend>Owners after the change</legend>
      {rows.map((row, i) => (
        // The rows have no identity but their place: an address being typed is not a key.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <div className="owners-change-row" key={i} data-testid="owners-change-row">
          <TextField
            label={`Owner ${i + 1}`}
            value={row}
            onChange={(value) => props.onChange(rows.map((r, j) => (j === i ? value : r)))}
            error={props.errors[i] ?? null}
            placeholder="0x…"
            spellCheck={false}
            autoComplete="off"
          />
          <button
            type="button"
            className="button small secondary"
            onClick={() => props.onChange(rows.filter((_, j) => j !== i))}
            disabled={rows.length === 1}
            aria-label={`Remove owner ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button small secondary"
        onClick={() => props.onChange([...rows, ''])}
        disabled={rows.length >= OWNERS_MAX}
      >
        Add an owner
      </button>
    </fieldset>
  );
}
