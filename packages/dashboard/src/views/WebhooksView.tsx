// Webhooks (account-level): the endpoints events are POSTed to, adding one (its signing secret shown once),
// deleting one, and each endpoint's delivery log with redelivery (DeliveryLog.tsx).

import type { CreatedWebhookEndpoint as CreatedWebhook, Page, WebhookEndpoint } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type RefObject, useId, useRef, useState } from 'react';
import { FULL_LIST_LIMIT, WEBHOOK_EVENT_TYPES } from '../api/wire.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime } from '../format.ts';
import { K, type ResourceState, STALE, updateData, useAction, useResource } from '../queries.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import {
  checkWebhookDraft,
  describeEvents,
  EMPTY_WEBHOOK_DRAFT,
  EVENT_INFO,
  listedEndpoint,
  urlRefusal,
  type WebhookDraft,
} from './webhookForm.ts';

export function WebhooksView() {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const endpoints = useResource(
    K.webhooks,
    () => sdk.webhooks.list({ limit: FULL_LIST_LIMIT }),
    STALE.webhooks,
  );
  const [shown, setShown] = useState<CreatedWebhook | null>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const [note, setNote] = useState<string | null>(null);

  function putEndpoints(change: (items: WebhookEndpoint[]) => WebhookEndpoint[], added = 0) {
    updateData<Page<WebhookEndpoint>>(qc, K.webhooks, (page) => ({
      ...page,
      items: change(page.items),
      total: page.total + added,
    }));
  }

  function onCreated(created: CreatedWebhook) {
    // Only the listing view is kept: the secret lives in the dialog's state and nowhere else.
    putEndpoints((items) => [listedEndpoint(created), ...items.filter((item) => item.id !== created.id)], 1);
    setNote(null);
    setShown(created);
  }

  const data = endpoints.data;
  return (
    <>
      <PageHeading title="Webhooks">Webhooks</PageHeading>
      <p className="lead">
        The service POSTs each event (a payment, an approval, a deposit, a key or wallet change) to your
        endpoints as it happens, signed with the endpoint's secret in the <code>Agent-Wallet-Signature</code>{' '}
        header. A delivery that fails is retried for over 24 hours.
      </p>
      <AddWebhookForm onCreated={onCreated} />
      <StatusNote text={note} />
      <section aria-labelledby="webhooks-title" className="section">
        <h2 id="webhooks-title">
          Your endpoints{data !== undefined && data.total > 0 ? ` (${data.total})` : ''}
        </h2>
        <EndpointList endpoints={endpoints} onDelete={setDeleting} />
      </section>
      {deleting !== null && (
        <DeleteEndpointDialog
          endpoint={deleting}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await sdk.webhooks.delete(deleting.id);
            putEndpoints((items) => items.filter((item) => item.id !== deleting.id), -1);
            setNote(`The endpoint ${deleting.url} is deleted; no more events go to it.`);
          }}
        />
      )}
      {shown !== null && <SecretShownOnce created={shown} onClose={() => setShown(null)} />}
    </>
  );
}

function EndpointList({
  endpoints,
  onDelete,
}: {
  endpoints: ResourceState<Page<WebhookEndpoint>>;
  onDelete: (endpoint: WebhookEndpoint) => void;
}) {
  const data = endpoints.data;
  if (data === undefined) {
    return endpoints.error !== undefined ? (
      <LoadError error={endpoints.error} onRetry={endpoints.reload} />
    ) : (
      <Loading />
    );
  }
  if (data.items.length === 0)
    return <p className="empty">No endpoints yet. Add one above to receive events.</p>;
  return (
    <ul className="endpoint-list" data-testid="webhook-list">
      {data.items.map((endpoint) => (
        <EndpointItem key={endpoint.id} endpoint={endpoint} onDelete={onDelete} />
      ))}
    </ul>
  );
}

function DeleteEndpointDialog({
  endpoint,
  onClose,
  onConfirm,
}: {
  endpoint: WebhookEndpoint;
  onClose: () => void;
  onConfirm: () => Promise<void>;
}) {
  return (
    <ConfirmDialog
      title="Delete this webhook endpoint?"
      confirmLabel="Delete endpoint"
      danger
      onClose={onClose}
      onConfirm={onConfirm}
    >
      <p>
        Events stop going to <code className="user-text">{endpoint.url}</code>, and deliveries still waiting
        for it are dropped. Its delivery log goes with it. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function AddWebhookForm({ onCreated }: { onCreated: (created: CreatedWebhook) => void }) {
  const { sdk } = useApp();
  const [draft, setDraft] = useState<WebhookDraft>(EMPTY_WEBHOOK_DRAFT);
  const [submitted, setSubmitted] = useState(false);
  const [refusedUrl, setRefusedUrl] = useState<string | null>(null);
  const action = useAction();
  const urlRef = useRef<HTMLInputElement>(null);
  const check = checkWebhookDraft(draft);
  const errors = submitted && !check.ok ? check.errors : {};
  const set = (change: Partial<WebhookDraft>) => setDraft({ ...draft, ...change });
  // The server's refusal of this very URL shows under the field, like the browser's own checks.
  const serverUrlError = refusedUrl !== null && refusedUrl === draft.url ? urlRefusal(action.error) : null;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!check.ok) {
      const form = event.currentTarget as HTMLFormElement;
      setTimeout(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
      return;
    }
    const sentUrl = draft.url;
    const failed = await action.run(async () => onCreated(await sdk.webhooks.create(check.input)));
    if (failed === null) {
      setDraft(EMPTY_WEBHOOK_DRAFT);
      setSubmitted(false);
      setRefusedUrl(null);
    } else if (urlRefusal(failed) !== null) {
      setRefusedUrl(sentUrl);
      setTimeout(() => urlRef.current?.focus(), 0);
    }
  }

  return (
    <form className="create-webhook" onSubmit={onSubmit} noValidate aria-label="Add a webhook endpoint">
      <h2 className="form-title">Add an endpoint</h2>
      <UrlField
        value={draft.url}
        onChange={(url) => {
          set({ url });
          // The refusal was about the URL just edited away: it no longer applies.
          if (refusedUrl !== null) {
            setRefusedUrl(null);
            action.setError(null);
          }
        }}
        inputRef={urlRef}
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
      {serverUrlError === null && <ErrorMessage error={action.error} />}
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Adding…' : 'Add endpoint'}
      </button>
    </form>
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

function EndpointItem({
  endpoint,
  onDelete,
}: {
  endpoint: WebhookEndpoint;
  onDelete: (endpoint: WebhookEndpoint) => void;
}) {
  const [open, setOpen] = useState(false);
  const logId = useId();
  return (
    <li className="endpoint-item" data-testid="webhook-item">
      <div className="key-head">
        <code className="endpoint-url user-text" data-testid="webhook-url">
          {endpoint.url}
        </code>
      </div>
      <dl className="tx-meta">
        {endpoint.description !== null && (
          <div>
            <dt>Description</dt>
            <dd className="user-text">{endpoint.description}</dd>
          </div>
        )}
        <div>
          <dt>Events</dt>
          <dd data-testid="webhook-events">{describeEvents(endpoint.events)}</dd>
        </div>
        <div>
          <dt>Added</dt>
          <dd>{formatDateTime(endpoint.createdAt)}</dd>
        </div>
      </dl>
      <div className="actions">
        <button
          type="button"
          className="button secondary small"
          aria-expanded={open}
          aria-controls={logId}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide delivery log' : 'Delivery log'}
        </button>
        <button type="button" className="button secondary small" onClick={() => onDelete(endpoint)}>
          Delete
        </button>
      </div>
      {open && (
        <div id={logId}>
          <DeliveryLog endpoint={endpoint} />
        </div>
      )}
    </li>
  );
}

/** The signing secret, once: copy it now or never. Closing forgets it. */
export function SecretShownOnce({ created, onClose }: { created: CreatedWebhook; onClose: () => void }) {
  const warningId = useId();
  const inputId = useId();
  return (
    <Dialog
      title="Copy your webhook signing secret"
      onClose={onClose}
      describedBy={warningId}
      className="key-dialog"
    >
      <p className="warning" id={warningId} data-testid="secret-warning">
        <strong>This secret is shown only once: you will not see it again.</strong> Copy it now and store it
        where your endpoint can read it; it verifies that events really come from this service. If you lose
        it, delete the endpoint and add it again.
      </p>
      <div className="field">
        <label htmlFor={inputId}>Signing secret for {created.url}</label>
        <div className="key-value">
          <input
            id={inputId}
            className="secret"
            readOnly
            value={created.secret}
            data-testid="webhook-secret"
            onFocus={(event) => event.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <CopyButton text={created.secret} label="Copy signing secret" autoFocus />
        </div>
      </div>
      <dl className="tx-meta">
        <div>
          <dt>Events</dt>
          <dd>{describeEvents(created.events)}</dd>
        </div>
      </dl>
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onClose}>
          I have stored the secret
        </button>
      </div>
    </Dialog>
  );
}
