// An endpoint's delivery log as a table, like the transactions: the event, its status, how many attempts, the
// last answer (an HTTP status or the network error), the time with seconds and how long ago, and a redeliver
// action. A status filter narrows the page shown; the log looks again by itself while a delivery is due soon.
import type { Page, WebhookDelivery, WebhookEndpoint } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pagination } from '../components/Pagination.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { formatDateTime, formatRelative } from '../format.ts';
import { DELIVERIES_PAGE_SIZE, K, STALE, updateData, useAction, useResource } from '../queries.ts';
import {
  answerKind,
  DELIVERY_FILTERS,
  DELIVERY_STATUS_WORDS,
  type DeliveryFilter,
  deliveryCountText,
  deliveryDueSoon,
  describeLastResponse,
  filterDeliveries,
} from './webhookForm.ts';

/** How often an open delivery log looks again while a delivery is due soon. */
export const DELIVERY_POLL_INTERVAL_MS = 3_000;

/** One page of an endpoint's deliveries, polled while one is due soon; a redelivery updates it in place. */
function useDeliveries(endpointId: string, page: number) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const [dueSoon, setDueSoon] = useState(false);
  const key = K.deliveries(endpointId, page);
  // Something is on its way: look again every few seconds (only while this log is open and the tab visible).
  const deliveries = useResource(
    key,
    () => sdk.webhooks.deliveries(endpointId, { page, limit: DELIVERIES_PAGE_SIZE }),
    STALE.deliveries,
    { refetchInterval: dueSoon ? DELIVERY_POLL_INTERVAL_MS : false },
  );
  const nowDue = deliveries.data !== undefined && deliveryDueSoon(deliveries.data.items);
  if (nowDue !== dueSoon) setDueSoon(nowDue);
  function replace(delivery: WebhookDelivery) {
    updateData<Page<WebhookDelivery>>(qc, key, (current) => ({
      ...current,
      items: current.items.map((item) => (item.id === delivery.id ? delivery : item)),
    }));
  }
  return { deliveries, replace };
}

export function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [page, setPage] = useState(1);
  const [note, setNote] = useState<string | null>(null);
  const [status, setStatus] = useState<DeliveryFilter>('');
  const { deliveries, replace } = useDeliveries(endpoint.id, page);
  const data = deliveries.data;
  const rows = useMemo(() => filterDeliveries(data?.items ?? [], status), [data, status]);

  function onRedelivered(delivery: WebhookDelivery) {
    replace(delivery);
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
      <DeliveryFilterBar status={status} onChange={setStatus} />
      {data === undefined ? (
        deliveries.error !== undefined ? (
          <LoadError error={deliveries.error} onRetry={deliveries.reload} />
        ) : (
          <Loading />
        )
      ) : rows.length === 0 ? (
        <p className="empty">
          {data.items.length === 0
            ? 'No events sent to this endpoint yet.'
            : 'No deliveries on this page match this status.'}
        </p>
      ) : (
        <DeliveryTable endpointId={endpoint.id} rows={rows} onRedelivered={onRedelivered} />
      )}
      {data !== undefined && deliveries.error !== undefined && (
        <LoadError error={deliveries.error} onRetry={deliveries.reload} />
      )}
      {data !== undefined && data.items.length > 0 && (
        <p className="hint table-foot" data-testid="delivery-count">
          {deliveryCountText(rows.length, data.items.length, data.total, status !== '')}
        </p>
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

function DeliveryFilterBar({
  status,
  onChange,
}: {
  status: DeliveryFilter;
  onChange: (status: DeliveryFilter) => void;
}) {
  const id = useId();
  return (
    <fieldset className="filters">
      <legend className="visually-hidden">Filter deliveries</legend>
      <div className="field compact">
        <label htmlFor={`${id}-status`}>Status</label>
        <select
          id={`${id}-status`}
          value={status}
          onChange={(event) => onChange(event.target.value as DeliveryFilter)}
        >
          <option value="">All</option>
          {DELIVERY_FILTERS.map((name) => (
            <option key={name} value={name}>
              {DELIVERY_STATUS_WORDS[name]}
            </option>
          ))}
        </select>
      </div>
    </fieldset>
  );
}

interface DeliveryRowsProps {
  endpointId: string;
  rows: WebhookDelivery[];
  onRedelivered: (delivery: WebhookDelivery) => void;
}

function DeliveryTable({ endpointId, rows, onRedelivered }: DeliveryRowsProps) {
  const [now] = useState(() => Date.now());
  return (
    <div className="table-wrap">
      <table className="delivery-table" data-testid="delivery-list">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">
              Attempts
            </th>
            <th scope="col">Last answer</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((delivery) => (
            <DeliveryRow
              key={delivery.id}
              endpointId={endpointId}
              delivery={delivery}
              now={now}
              onRedelivered={onRedelivered}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeliveryRow({
  endpointId,
  delivery,
  now,
  onRedelivered,
}: {
  endpointId: string;
  delivery: WebhookDelivery;
  now: number;
  onRedelivered: (delivery: WebhookDelivery) => void;
}) {
  return (
    <tr className="delivery" data-testid="delivery-item" data-status={delivery.status}>
      <td className="tx-time">
        <time dateTime={delivery.createdAt}>{formatDateTime(delivery.createdAt)}</time>
        <span className="hint">{formatRelative(delivery.createdAt, now)}</span>
      </td>
      <td className="delivery-what">
        <code className="delivery-event">{delivery.eventType}</code>
        <code className="delivery-event-id small-code hint" title="Event id (the same on every redelivery)">
          {delivery.eventId}
        </code>
      </td>
      <td className="delivery-status">
        <StatusTag status={delivery.status} label={DELIVERY_STATUS_WORDS[delivery.status]} />
        {delivery.status === 'pending' && (
          <span className="hint" data-testid="delivery-next">
            Next attempt {delivery.nextAttemptAt === null ? 'soon' : formatDateTime(delivery.nextAttemptAt)}
          </span>
        )}
      </td>
      <td className="num delivery-attempts" data-label="Attempts" data-testid="delivery-attempts">
        {delivery.attempts}
      </td>
      <td
        className={`delivery-answer answer-${answerKind(delivery)} user-text`}
        data-label="Last answer"
        data-testid="delivery-response"
      >
        {describeLastResponse(delivery)}
      </td>
      <td className="delivery-actions">
        <RedeliverButton endpointId={endpointId} delivery={delivery} onRedelivered={onRedelivered} />
      </td>
    </tr>
  );
}

function RedeliverButton({
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
  if (!useCan()('manageWebhooks')) return null;
  return (
    <>
      <button
        type="button"
        className="button secondary small"
        disabled={action.busy}
        onClick={() =>
          action.run(async () => onRedelivered(await sdk.webhooks.redeliver(endpointId, delivery.id)))
        }
      >
        {action.busy ? 'Queuing…' : 'Redeliver'} <span className="visually-hidden">{delivery.eventType}</span>
      </button>
      <ErrorMessage error={action.error} />
    </>
  );
}
