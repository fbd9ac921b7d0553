// Webhooks (account-level): the endpoints events are POSTed to, adding one (its signing secret shown once),
// deleting one, and each endpoint's delivery log with redelivery.

import type {
  CreatedWebhookEndpoint as CreatedWebhook,
  Page,
  WebhookDelivery,
  WebhookEndpoint,
} from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { FULL_LIST_LIMIT, WEBHOOK_EVENT_TYPES } from '../api/wire.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { Pagination } from '../components/Pagination.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime, plural } from '../format.ts';
import { DELIVERIES_PAGE_SIZE, K, STALE, updateData, useAction, useResource } from '../queries.ts';
import {
  checkWebhookDraft,
  DELIVERY_STATUS_WORDS,
  deliveryDueSoon,
  describeEvents,
  describeLastResponse,
  EMPTY_WEBHOOK_DRAFT,
  EVENT_INFO,
  listedEndpoint,
  urlRefusal,
  type WebhookDraft,
} from './webhookForm.ts';

/** How often an open delivery log looks again while a delivery is due soon. */
export const DELIVERY_POLL_INTERVAL_MS = 3_000;

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
        {data === undefined ? (
          endpoints.error !== undefined ? (
            <LoadError error={endpoints.error} onRetry={endpoints.reload} />
          ) : (
            <Loading />
          )
        ) : data.items.length === 0 ? (
          <p className="empty">No endpoints yet. Add one above to receive events.</p>
        ) : (
          <ul className="endpoint-list" data-testid="webhook-list">
            {data.items.map((endpoint) => (
              <EndpointItem key={endpoint.id} endpoint={endpoint} onDelete={setDeleting} />
            ))}
          </ul>
        )}
      </section>
      {deleting !== null && (
        <ConfirmDialog
          title="Delete this webhook endpoint?"
          confirmLabel="Delete endpoint"
          danger
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await sdk.webhooks.delete(deleting.id);
            putEndpoints((items) => items.filter((item) => item.id !== deleting.id), -1);
            setNote(`The endpoint ${deleting.url} is deleted; no more events go to it.`);
          }}
        >
          <p>
            Events stop going to <code className="user-text">{deleting.url}</code>, and deliveries still
            waiting for it are dropped. Its delivery log goes with it. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
      {shown !== null && <SecretShownOnce created={shown} onClose={() => setShown(null)} />}
    </>
  );
}

function AddWebhookForm({ onCreated }: { onCreated: (created: CreatedWebhook) => void }) {
  const { sdk } = useApp();
  const [draft, setDraft] = useState<WebhookDraft>(EMPTY_WEBHOOK_DRAFT);
  const [submitted, setSubmitted] = useState(false);
  const [refusedUrl, setRefusedUrl] = useState<string | null>(null);
  const action = useAction();
  const urlRef = useRef<HTMLInputElement>(null);
  const formId = useId();
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
      <TextField
        label="Endpoint URL"
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
        hint="An https:// address of yours that accepts POST requests, e.g. https://example.com/webhooks."
        type="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        maxLength={2048}
      />
      <fieldset className="field" aria-describedby={errors.events ? `${formId}-events-error` : undefined}>
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
                    aria-invalid={errors.events ? true : undefined}
                  />
                  <span>
                    <code>{type}</code> — {EVENT_INFO[type]}
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )}
        {errors.events && (
          <p className="field-error" id={`${formId}-events-error`}>
            {errors.events}
          </p>
        )}
      </fieldset>
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

function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [note, setNote] = useState<string | null>(null);
  const [dueSoon, setDueSoon] = useState(false);
  const key = K.deliveries(endpoint.id, page);
  // Something is on its way: look again every few seconds (only while this log is open and the tab visible).
  const deliveries = useResource(
    key,
    () => sdk.webhooks.deliveries(endpoint.id, { page, limit: DELIVERIES_PAGE_SIZE }),
    STALE.deliveries,
    { refetchInterval: dueSoon ? DELIVERY_POLL_INTERVAL_MS : false },
  );
  const data = deliveries.data;
  const nowDue = data !== undefined && deliveryDueSoon(data.items);
  if (nowDue !== dueSoon) setDueSoon(nowDue);

  function onRedelivered(delivery: WebhookDelivery) {
    updateData<Page<WebhookDelivery>>(qc, key, (current) => ({
      ...current,
      items: current.items.map((item) => (item.id === delivery.id ? delivery : item)),
    }));
    setNote(`${delivery.eventType} is queued to be sent again.`);
  }

  return (
    <div className="audit" data-testid="delivery-log">
      <div className="panel-head">
        <h3 className="audit-title">Delivery log</h3>
        <button
          type="button"
          className="button secondary small"
          onClick={() => {
            setNote(null);
            deliveries.reload();
          }}
          disabled={deliveries.loading}
        >
          {deliveries.loading && data !== undefined ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <StatusNote text={note} />
      {data === undefined ? (
        deliveries.error !== undefined ? (
          <LoadError error={deliveries.error} onRetry={deliveries.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No events sent to this endpoint yet.</p>
      ) : (
        <ul className="delivery-list">
          {data.items.map((delivery) => (
            <DeliveryItem
              key={delivery.id}
              endpointId={endpoint.id}
              delivery={delivery}
              onRedelivered={onRedelivered}
            />
          ))}
        </ul>
      )}
      {data !== undefined && deliveries.error !== undefined && (
        <LoadError error={deliveries.error} onRetry={deliveries.reload} />
      )}
      {data !== undefined && (
        <Pagination
          page={page}
          limit={DELIVERIES_PAGE_SIZE}
          total={data.total}
          onPage={setPage}
          label="Delivery log pages"
        />
      )}
    </div>
  );
}

function DeliveryItem({
  endpointId,
  delivery,
  onRedelivered,
}: {
  endpointId: string;
  delivery: WebhookDelivery;
  onRedelivered: (delivery: WebhookDelivery) => void;
}) {
  const { sdk } = useApp();
  const action = useAction();
  return (
    <li className="delivery" data-testid="delivery-item" data-status={delivery.status}>
      <div className="tx-main">
        <code className="delivery-event">{delivery.eventType}</code>
        <StatusTag status={delivery.status} label={DELIVERY_STATUS_WORDS[delivery.status]} />
      </div>
      <dl className="tx-meta">
        <div>
          <dt>Attempts</dt>
          <dd>{plural(delivery.attempts, 'attempt')}</dd>
        </div>
        <div>
          <dt>Last response</dt>
          <dd className="user-text" data-testid="delivery-response">
            {describeLastResponse(delivery)}
          </dd>
        </div>
        {delivery.status === 'pending' && (
          <div>
            <dt>Next attempt</dt>
            <dd>{delivery.nextAttemptAt === null ? 'Soon' : formatDateTime(delivery.nextAttemptAt)}</dd>
          </div>
        )}
        <div>
          <dt>Event</dt>
          <dd>
            <code className="small-code">{delivery.eventId}</code> · {formatDateTime(delivery.createdAt)}
          </dd>
        </div>
      </dl>
      <div className="actions">
        <button
          type="button"
          className="button secondary small"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => onRedelivered(await sdk.webhooks.redeliver(endpointId, delivery.id)))
          }
        >
          {action.busy ? 'Queuing…' : 'Redeliver'}{' '}
          <span className="visually-hidden">{delivery.eventType}</span>
        </button>
      </div>
      <ErrorMessage error={action.error} />
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
