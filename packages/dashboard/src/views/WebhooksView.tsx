// Webhooks (account-level): the endpoints events are POSTed to, adding one (its signing secret shown once),
// editing one (EditWebhookDialog.tsx), deleting one, and each endpoint's delivery log with redelivery
// (DeliveryLog.tsx).

import type { CreatedWebhookEndpoint as CreatedWebhook, Page, WebhookEndpoint } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { FULL_LIST_LIMIT } from '../api/wire.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { ShownOnce } from '../components/ShownOnce.tsx';
import { formatDateTime } from '../format.ts';
import { K, type ResourceState, STALE, updateData, useResource } from '../queries.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { EditWebhookDialog } from './EditWebhookDialog.tsx';
import { useWebhookForm, WebhookFields } from './WebhookFields.tsx';
import { describeEvents, EMPTY_WEBHOOK_DRAFT, listedEndpoint } from './webhookForm.ts';

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
  const [editing, setEditing] = useState<WebhookEndpoint | null>(null);
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

  function onSaved(updated: WebhookEndpoint) {
    // The answer shows at once; the list loads again behind it.
    putEndpoints((items) => items.map((item) => (item.id === updated.id ? updated : item)));
    void qc.invalidateQueries({ queryKey: K.webhooks });
    setNote(`The endpoint ${updated.url} is saved.`);
  }

  async function onDeleteConfirmed(endpoint: WebhookEndpoint) {
    await sdk.webhooks.delete(endpoint.id);
    putEndpoints((items) => items.filter((item) => item.id !== endpoint.id), -1);
    setNote(`The endpoint ${endpoint.url} is deleted; no more events go to it.`);
  }

  const data = endpoints.data;
  const mayManage = useCan()('manageWebhooks');
  return (
    <>
      <PageHeading title="Webhooks">Webhooks</PageHeading>
      <WebhooksLead />
      {mayManage && <AddWebhookForm onCreated={onCreated} />}
      <StatusNote text={note} />
      <section aria-labelledby="webhooks-title" className="section">
        <h2 id="webhooks-title">
          Your endpoints{data !== undefined && data.total > 0 ? ` (${data.total})` : ''}
        </h2>
        <EndpointList endpoints={endpoints} actions={{ onEdit: setEditing, onDelete: setDeleting }} />
      </section>
      {editing !== null && (
        <EditWebhookDialog endpoint={editing} onClose={() => setEditing(null)} onSaved={onSaved} />
      )}
      {deleting !== null && (
        <DeleteEndpointDialog
          endpoint={deleting}
          onClose={() => setDeleting(null)}
          onConfirm={() => onDeleteConfirmed(deleting)}
        />
      )}
      {shown !== null && <SecretShownOnce created={shown} onClose={() => setShown(null)} />}
    </>
  );
}

function WebhooksLead() {
  return (
    <p className="lead">
      The service POSTs each event (a payment, an approval, a deposit, a key or wallet change) to your
      endpoints as it happens, signed with the endpoint's secret in the <code>Agent-Wallet-Signature</code>{' '}
      header. A delivery that fails is retried for over 24 hours.
    </p>
  );
}

/** What each endpoint in the list offers besides its delivery log. */
interface EndpointActions {
  onEdit: (endpoint: WebhookEndpoint) => void;
  onDelete: (endpoint: WebhookEndpoint) => void;
}

function EndpointList({
  endpoints,
  actions,
}: {
  endpoints: ResourceState<Page<WebhookEndpoint>>;
  actions: EndpointActions;
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
        <EndpointItem key={endpoint.id} endpoint={endpoint} actions={actions} />
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
  const form = useWebhookForm(EMPTY_WEBHOOK_DRAFT);

  async function onSubmit(event: FormEvent) {
    const sent = await form.submit(event, async (input) => onCreated(await sdk.webhooks.create(input)));
    if (sent) form.reset();
  }

  return (
    <form className="create-webhook" onSubmit={onSubmit} noValidate aria-label="Add a webhook endpoint">
      <h2 className="form-title">Add an endpoint</h2>
      <WebhookFields form={form} />
      <button type="submit" className="button primary" disabled={form.action.busy}>
        {form.action.busy ? 'Adding…' : 'Add endpoint'}
      </button>
    </form>
  );
}

function EndpointItem({ endpoint, actions }: { endpoint: WebhookEndpoint; actions: EndpointActions }) {
  const [open, setOpen] = useState(false);
  const logId = useId();
  // The buttons keep their short visible names; their description names the endpoint they act on, so a
  // screen reader moving between buttons hears which of several endpoints "Edit" or "Delete" is for.
  const urlId = useId();
  const mayManage = useCan()('manageWebhooks');
  return (
    <li className="endpoint-item" data-testid="webhook-item">
      <div className="key-head">
        <code id={urlId} className="endpoint-url user-text" data-testid="webhook-url">
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
          aria-describedby={urlId}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide delivery log' : 'Delivery log'}
        </button>
        {mayManage && (
          <>
            <button
              type="button"
              className="button secondary small"
              aria-describedby={urlId}
              onClick={() => actions.onEdit(endpoint)}
            >
              Edit
            </button>
            <button
              type="button"
              className="button secondary small"
              aria-describedby={urlId}
              onClick={() => actions.onDelete(endpoint)}
            >
              Delete
            </button>
          </>
        )}
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
  return (
    <ShownOnce
      title="Copy your webhook signing secret"
      warning={
        <>
          <strong>This secret is shown only once: you will not see it again.</strong> Copy it now and store it
          where your endpoint can read it; it verifies that events really come from this service. If you lose
          it, delete the endpoint and add it again.
        </>
      }
      warningTestId="secret-warning"
      label={<>Signing secret for {created.url}</>}
      value={created.secret}
      valueTestId="webhook-secret"
      copyLabel="Copy signing secret"
      doneLabel="I have stored the secret"
      onClose={onClose}
    >
      <dl className="tx-meta">
        <div>
          <dt>Events</dt>
          <dd>{describeEvents(created.events)}</dd>
        </div>
      </dl>
    </ShownOnce>
  );
}
