// A wallet's alerts (contract section 10): listed for every role (what each watches, its threshold, whether it
// is firing now); added and deleted by a role that may (manageAlerts). An agent wallet offers both kinds, the
// master wallet only its balance. The events themselves go to webhooks and email (Settings → Notifications).
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import type { Alert, AlertType } from '../api/alerts.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatDateTime } from '../format.ts';
import { K, STALE, useAction, useResource } from '../queries.ts';
import { ALERT_TYPE_WORDS, alertEffect, alertThreshold, alertTypeWords, newAlert } from './alertWords.ts';

/**
 * `walletId`: the wallet whose alerts are listed (the master wallet's own id for its card); `agent`: whether it is
 * an agent wallet (cap alerts, and the walletId sent with a new alert).
 */
export function AlertsCard({ walletId, agent }: { walletId: string; agent: boolean }) {
  const { client } = useApp();
  const mayManage = useCan()('manageAlerts');
  const alerts = useResource(K.alerts(walletId), () => client.alerts.list(walletId), STALE.alerts);
  const [removing, setRemoving] = useState<Alert | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const qc = useQueryClient();
  const items = alerts.data?.items;

  async function onRemove(alert: Alert) {
    await client.alerts.remove(alert.id);
    await qc.invalidateQueries({ queryKey: K.alerts(walletId) });
    setNote('Alert deleted.');
  }

  return (
    <section className="card" aria-labelledby={`alerts-${walletId}`} data-testid="alerts">
      <h2 id={`alerts-${walletId}`}>Alerts</h2>
      <p className="hint">
        {agent
          ? 'Be told when this wallet’s balance falls below an amount, or its spending reaches a share of a cap.'
          : 'Be told when the master wallet’s balance falls below an amount.'}{' '}
        Alerts are sent as webhook events and emails.
      </p>
      {items === undefined ? (
        alerts.error !== undefined ? (
          <LoadError error={alerts.error} onRetry={alerts.reload} />
        ) : (
          <Loading />
        )
      ) : items.length === 0 ? (
        <p className="empty">No alerts yet.</p>
      ) : (
        <ul className="rows" aria-label="Alerts" data-testid="alert-list">
          {items.map((alert) => (
            <li key={alert.id} className="row" data-testid="alert-row">
              <span className="wallet-name">{alertTypeWords(alert.type)}</span>
              <span data-testid="alert-threshold">{alertThreshold(alert)}</span>
              {alert.firing && <StatusTag status="pending" label="firing" />}
              <span className="row-meta" title={alertEffect(alert.type)}>
                Since {formatDateTime(alert.createdAt)}
              </span>
              {mayManage && (
                <button
                  type="button"
                  className="button secondary small"
                  onClick={() => setRemoving(alert)}
                  aria-label={`Delete the alert: ${alertTypeWords(alert.type)}, ${alertThreshold(alert)}`}
                >
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <StatusNote text={note} />
      {mayManage ? (
        <AddAlertForm walletId={walletId} agent={agent} onAdded={setNote} />
      ) : (
        <p className="hint" data-testid="alerts-read-only">
          An admin or an owner can add and delete alerts.
        </p>
      )}
      {removing !== null && (
        <ConfirmDialog
          title="Delete this alert?"
          confirmLabel="Delete alert"
          onConfirm={() => onRemove(removing)}
          onClose={() => setRemoving(null)}
        >
          <p>
            {alertTypeWords(removing.type)}: {alertThreshold(removing)}. No more events or emails will be sent
            for it.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function AddAlertForm({
  walletId,
  agent,
  onAdded,
}: {
  walletId: string;
  agent: boolean;
  onAdded: (note: string) => void;
}) {
  const { client } = useApp();
  const qc = useQueryClient();
  const action = useAction();
  const [type, setType] = useState<AlertType>('balance_below');
  const [value, setValue] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const selectId = useId();
  const built = newAlert(type, value, agent ? walletId : null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (built.alert === null) return;
    const body = built.alert;
    const failed = await action.run(async () => {
      await client.alerts.create(body);
      await qc.invalidateQueries({ queryKey: K.alerts(walletId) });
    });
    if (failed === null) {
      setSubmitted(false);
      setValue('');
      onAdded('Alert added.');
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="stack-form" aria-label="Add an alert">
      {agent && (
        <div className="field">
          <label htmlFor={selectId}>Alert when</label>
          <select
            id={selectId}
            value={type}
            onChange={(event) => {
              setType(event.target.value as AlertType);
              setValue('');
              setSubmitted(false);
            }}
          >
            {(Object.keys(ALERT_TYPE_WORDS) as Array<keyof typeof ALERT_TYPE_WORDS>).map((name) => (
              <option key={name} value={name}>
                {ALERT_TYPE_WORDS[name].option}
              </option>
            ))}
          </select>
        </div>
      )}
      <TextField
        label={type === 'balance_below' ? 'Balance below (USDC)' : 'Share of a cap (%)'}
        value={value}
        onChange={setValue}
        error={submitted ? built.error : null}
        hint={
          type === 'balance_below'
            ? 'Once when the balance falls below this; again after it was back at or above it.'
            : 'Once per cap (daily, total, rolling or calendar budget) when spending reaches this share; again after it was back under or a new period began.'
        }
        inputMode={type === 'balance_below' ? 'decimal' : 'numeric'}
        autoComplete="off"
      />
      <button type="submit" className="button secondary" disabled={action.busy}>
        {action.busy ? 'Adding…' : 'Add alert'}
      </button>
      <ErrorMessage error={action.error} />
    </form>
  );
}
