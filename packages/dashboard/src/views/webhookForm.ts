// Webhook endpoints in words, and the checks the "Add an endpoint" and "Edit" forms make before sending. Pure:
// unit-tested.

import type {
  CreatedWebhookEndpoint as CreatedWebhook,
  WebhookDeliveryStatus as DeliveryStatus,
  UpdateWebhookParams,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
} from '@agent-wallet/sdk';
import type { ApiError } from '../api/errors.ts';
import { WEBHOOK_EVENT_TYPES } from '../api/wire.ts';

/** What the "Add an endpoint" form sends (and what the "Edit" form compares with the endpoint). */
export interface WebhookInput {
  url: string;
  events: WebhookEventType[] | null;
  description: string | null;
}

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 200;

export const EVENT_INFO: Record<WebhookEventType, string> = {
  'payment.completed': 'A payment went through',
  'payment.failed': 'A payment failed and its money came back',
  'payment.rejected': 'A payment was denied by a policy or rejected by you',
  'approval.requested': 'A payment waits for your approval',
  'approval.approved': 'You approved a payment',
  'approval.recorded': 'A member approved a payment that needs more approvals',
  'approval.rejected': 'You rejected a payment',
  'approval.expired': 'A payment waiting for approval expired',
  'deposit.credited': 'A deposit was credited',
  'key.revoked': 'An API key was revoked',
  'key.rotated': 'An API key was rotated',
  'wallet.frozen': 'An agent wallet was frozen',
  'wallet.unfrozen': 'An agent wallet was unfrozen',
  'security.password_changed': 'Your password was changed',
  'security.factor_added': 'A second factor (TOTP or passkey) was added',
  'security.factor_removed': 'A second factor was removed',
  'security.member_invited': 'Someone was invited as owner or admin',
  'security.member_role_changed': 'A member’s role was changed',
  'security.member_removed': 'A member was removed (and the keys they made revoked)',
  'withdrawal.completed': 'A withdrawal from the master wallet went through',
  'withdrawal.failed': 'A withdrawal failed and its money came back',
  'withdrawal_address.added': 'An address was added to the withdrawal book',
  'balance.low': 'A balance fell below an alert’s amount',
  'budget.threshold': 'Spending reached an alert’s share of a cap',
  'treasury.at_risk': 'What a breach of the server could take rose above an alert’s amount',
};

export interface WebhookDraft {
  url: string;
  /** Every event type, also ones added later (sent as events: null). */
  allEvents: boolean;
  events: WebhookEventType[];
  description: string;
}

export const EMPTY_WEBHOOK_DRAFT: WebhookDraft = { url: '', allEvents: true, events: [], description: '' };

/** The "Edit" form's starting point: the endpoint as it is. */
export function draftOf(endpoint: WebhookEndpoint): WebhookDraft {
  return {
    url: endpoint.url,
    allEvents: endpoint.events === null,
    events: endpoint.events === null ? [] : [...endpoint.events],
    description: endpoint.description ?? '',
  };
}

function sameEvents(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((type) => b.includes(type));
}

/**
 * What an edit changes: only the fields that differ from the endpoint (an unchanged URL is not sent, so the
 * server does not check it again); {} when nothing changed.
 */
export function webhookChange(endpoint: WebhookEndpoint, input: WebhookInput): UpdateWebhookParams {
  return {
    ...(input.url === endpoint.url ? {} : { url: input.url }),
    ...(sameEvents(input.events, endpoint.events) ? {} : { events: input.events }),
    ...(input.description === endpoint.description ? {} : { description: input.description }),
  };
}

export interface WebhookErrors {
  url?: string;
  events?: string;
  description?: string;
}

/**
 * What is wrong with a URL as far as the browser can tell, or null. Whether the server accepts http:// or an
 * address on a private network depends on how it runs: it says so itself (see urlRefusal).
 */
export function webhookUrlError(raw: string): string | null {
  const text = raw.trim();
  if (text === '') return 'Enter the URL that receives the events.';
  if (text.length > WEBHOOK_URL_MAX) return `Use at most ${WEBHOOK_URL_MAX} characters.`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Enter a full URL, e.g. https://example.com/webhooks.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return 'Use an https:// URL, e.g. https://example.com/webhooks.';
  if (url.username !== '' || url.password !== '') return 'Leave the user name and password out of the URL.';
  return null;
}

export type WebhookDraftCheck = { ok: true; input: WebhookInput } | { ok: false; errors: WebhookErrors };

export function checkWebhookDraft(draft: WebhookDraft): WebhookDraftCheck {
  const errors: WebhookErrors = {};
  const url = webhookUrlError(draft.url);
  if (url !== null) errors.url = url;
  const events = WEBHOOK_EVENT_TYPES.filter((type) => draft.events.includes(type));
  if (!draft.allEvents && events.length === 0) errors.events = 'Choose at least one event, or all events.';
  const description = draft.description.trim();
  if (description.length > WEBHOOK_DESCRIPTION_MAX)
    errors.description = `Use at most ${WEBHOOK_DESCRIPTION_MAX} characters (this has ${description.length}).`;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    input: {
      url: draft.url.trim(),
      events: draft.allEvents ? null : events,
      description: description === '' ? null : description,
    },
  };
}

/**
 * The server's refusal of a URL (400 "url must be an https:// URL", "url must point to a public address",
 * "url: host does not resolve to a public address"), as a sentence for under the URL field; null for anything
 * else.
 */
export function urlRefusal(error: ApiError | null | undefined): string | null {
  if (error === null || error === undefined || error.code !== 'VALIDATION_ERROR') return null;
  const message = error.serverMessage.trim();
  const named = /^url (.+)$/i.exec(message);
  const detail = named === null ? /^url: (.+)$/i.exec(message) : null;
  const end = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);
  if (named !== null) return end(`The server refused this URL: it ${named[1]}`);
  if (detail !== null) return end(`The server refused this URL: ${detail[1]}`);
  return null;
}

/** "All events" or the chosen types. */
export function describeEvents(events: readonly string[] | null): string {
  return events === null ? 'All events' : events.join(', ');
}

/** The listing view of an endpoint just created: everything but its secret. */
export function listedEndpoint(created: CreatedWebhook): WebhookEndpoint {
  return {
    id: created.id,
    url: created.url,
    events: created.events,
    description: created.description,
    createdAt: created.createdAt,
    updatedAt: created.createdAt,
  };
}

export const DELIVERY_STATUS_WORDS: Record<DeliveryStatus, string> = {
  pending: 'pending',
  delivered: 'delivered',
  failed: 'failed',
};

/** The last answer of a delivery: "HTTP 200", "HTTP 500: <excerpt>", a network error, or "No attempt yet". */
export function describeLastResponse(delivery: WebhookDelivery): string {
  const status = delivery.responseStatus === null ? null : `HTTP ${delivery.responseStatus}`;
  const error = delivery.lastError?.trim() || null;
  if (status !== null && error !== null) return `${status}: ${error}`;
  return status ?? error ?? (delivery.attempts === 0 ? 'No attempt yet' : '—');
}

/** Whether the log should look again soon: a delivery is due within a minute. */
export function deliveryDueSoon(deliveries: readonly WebhookDelivery[], now = Date.now()): boolean {
  return deliveries.some(
    (d) => d.status === 'pending' && (d.nextAttemptAt === null || Date.parse(d.nextAttemptAt) - now < 60_000),
  );
}

/** The delivery log's status filter: '' shows every delivery. */
export type DeliveryFilter = DeliveryStatus | '';

export const DELIVERY_FILTERS: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];

export function filterDeliveries(
  deliveries: readonly WebhookDelivery[],
  status: DeliveryFilter,
): WebhookDelivery[] {
  return status === '' ? [...deliveries] : deliveries.filter((delivery) => delivery.status === status);
}

/** How the last answer reads at a glance: a 2xx, another HTTP status, a network error, or none yet. */
export type AnswerKind = 'ok' | 'http-error' | 'network-error' | 'none';

export function answerKind(delivery: Pick<WebhookDelivery, 'responseStatus' | 'lastError'>): AnswerKind {
  const status = delivery.responseStatus;
  if (status !== null) return status >= 200 && status < 300 ? 'ok' : 'http-error';
  return delivery.lastError?.trim() ? 'network-error' : 'none';
}

/** Below the table: "3 shown of 20 on this page (filtered)." */
export function deliveryCountText(shown: number, onPage: number, total: number, filtered: boolean): string {
  const scope = onPage < total ? ` on this page (${total} in all)` : '';
  return `${shown} shown of ${onPage}${scope}${filtered ? ' (filtered)' : ''}.`;
}
