// Alerts (contract section 10): a balance below an amount (an agent wallet, or the master wallet without a
// walletId) and spending reaching a share of an agent wallet's caps. The SDK has no methods for these routes yet,
// so they go through ApiClient.request (the same adapter: rate limits, 401, step-up), typed with the SDK's wire
// types.
import type { Answer } from './custody.ts';
import type { Requester } from './request.ts';

export type Alert = Answer<'listAlerts'>['items'][number];
export type AlertType = Alert['type'];

/** What to watch: the master wallet's balance without a walletId; cap_used needs an agent wallet. */
export type NewAlert =
  | { type: 'balance_below'; walletId?: string; params: { amount: string } }
  | { type: 'cap_used'; walletId: string; params: { percent: number } }
  | { type: 'treasury_at_risk'; params: { amount: string } };

const id = encodeURIComponent;

export function alertsApi(client: Requester) {
  return {
    list: (walletId: string) =>
      client.request<Answer<'listAlerts'>>('GET', '/alerts', { query: { walletId } }),
    create: (alert: NewAlert) => client.request<Answer<'createAlert'>>('POST', '/alerts', { body: alert }),
    remove: (alertId: string) => client.request<Answer<'deleteAlert'>>('DELETE', `/alerts/${id(alertId)}`),
  };
}

export type AlertsApi = ReturnType<typeof alertsApi>;
