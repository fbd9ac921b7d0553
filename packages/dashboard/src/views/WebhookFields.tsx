// The webhook endpoint form's state and fields, shared by "Add an endpoint" (WebhooksView.tsx) and the "Edit"
// dialog (EditWebhookDialog.tsx): the same browser checks, and the server's refusal of a URL under its field.

import { type FormEvent, type RefObject, useId, useRef, useState } from 'react';
import { WEBHOOK_EVENT_TYPES } from '../api/wire.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { TextField } from '../components/TextField.tsx';
import { useAction } from '../queries.ts';
import {
  checkWebhookDraft,
  EVENT_INFO,
  urlRefusal,
  type WebhookDraft,
  type WebhookErrors,
  type WebhookInput,
} from './webhookForm.ts';

export type WebhookForm = ReturnType<typeof useWebhookForm>;

/** A draft endpoint, its checks once submitted, and the send with busy and error state. */
export function useWebhookForm(initial: WebhookDraft) {
  const [draft, setDraft] = useState<WebhookDraft>(initial);
  const [submitted, setSubmitted] = useState(false);
  const [refusedUrl, setRefusedUrl] = useState<string | null>(null);
  const action = useAction();
  const urlRef = useRef<HTMLInputElement>(null);
  const check = checkWebhookDraft(draft);
  const errors: WebhookErrors = submitted && !check.ok ? check.errors : {};
  const set = (change: Partial<WebhookDraft>) => setDraft({ ...draft, ...change });
  // The server's refusal of this very URL shows under the field, like the browser's own checks.
  const serverUrlError = refusedUrl !== null && refusedUrl === draft.url ? urlRefusal(action.error) : null;

  function setUrl(url: string) {
    set({ url });
    // The refusal was about the URL just edited away: it no longer applies.
    if (refusedUrl !== null) {
      setRefusedUrl(null);
      action.setError(null);
    }
  }

  /** Checks the draft, then sends it. Resolves to true once sent. */
  async function submit(event: FormEvent, send: (input: WebhookInput) => Promise<void>): Promise<boolean> {
    event.preventDefault();
    setSubmitted(true);
    if (!check.ok) {
      const form = event.currentTarget as HTMLFormElement;
      setTimeout(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
      return false;
    }
    const sentUrl = draft.url;
    const input = check.input;
    const failed = await action.run(() => send(input));
    if (failed === null) return true;
    if (urlRefusal(failed) !== null) {
      setRefusedUrl(sentUrl);
      setTimeout(() => urlRef.current?.focus(), 0);
    }
    return false;
  }

  function reset() {
    setDraft(initial);
    setSubmitted(false);
    setRefusedUrl(null);
  }

  return { draft, set, setUrl, errors, serverUrlError, action, urlRef, submit, reset };
}

/** URL, events and description, with their errors; the server's other errors below them. */
export function WebhookFields({ form }: { form: WebhookForm }) {
  const { draft, set, errors, serverUrlError } = form;
  return (
    <>
      <UrlField
        value={draft.url}
        onChange={form.setUrl}
        inputRef={form.urlRef}
        error={errors.url ?? serverUrlError}
      />
      <EventChoices draft={draft} set={set} error={errors.events} />
      <TextField
        label="Description (optional)"
        value={draft.description}
        onChange={(description) => set({ description })}
        error={errors.description}
        hint="What listens there, e.g. accounting service."
        autoComplete="off"
        maxLength={400}
      />
      {serverUrlError === null && <ErrorMessage error={form.action.error} />}
    </>
  );
}

function UrlField({
  value,
  onChange,
  inputRef,
  error,
}: {
  value: string;
  onChange: (url: string) => void;
  inputRef: RefObject<HTMLInputElement | null>;
  error: string | null | undefined;
}) {
  return (
    <TextField
      label="Endpoint URL"
      value={value}
      onChange={onChange}
      inputRef={inputRef}
      error={error}
      hint="An https:// address of yours that accepts POST requests, e.g. https://example.com/webhooks."
      type="url"
      inputMode="url"
      autoComplete="off"
      spellCheck={false}
      maxLength={2048}
    />
  );
}

/** Which events go to the endpoint: all (also types added later) or the ones ticked. */
function EventChoices({
  draft,
  set,
  error,
}: {
  draft: WebhookDraft;
  set: (change: Partial<WebhookDraft>) => void;
  error: string | undefined;
}) {
  const id = useId();
  return (
    <fieldset className="field" aria-describedby={error ? `${id}-events-error` : undefined}>
      <legend>Events</legend>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={draft.allEvents}
          onChange={(event) => set({ allEvents: event.target.checked })}
        />
        <span>
          <strong>All events</strong> — also types added later
        </span>
      </label>
      {!draft.allEvents && (
        <ul className="event-choices" aria-label="Event types">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <li key={type}>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={draft.events.includes(type)}
                  onChange={(event) =>
                    set({
                      events: event.target.checked
                        ? [...draft.events, type]
                        : draft.events.filter((t) => t !== type),
                    })
                  }
                  aria-invalid={error ? true : undefined}
                />
                <span>
                  <code>{type}</code> — {EVENT_INFO[type]}
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="field-error" id={`${id}-events-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
