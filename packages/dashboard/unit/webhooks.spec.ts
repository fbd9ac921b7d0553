import type { WebhookDelivery, WebhookEndpoint } from '@agent-wallet/sdk';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/errors.ts';
import {
  answerKind,
  checkWebhookDraft,
  deliveryCountText,
  deliveryDueSoon,
  describeEvents,
  describeLastResponse,
  draftOf,
  EMPTY_WEBHOOK_DRAFT,
  filterDeliveries,
  listedEndpoint,
  urlRefusal,
  webhookChange,
  webhookUrlError,
} from '../src/views/webhookForm.ts';

describe('webhook endpoint form', () => {
  it('checks the URL as far as a browser can', () => {
    expect(webhookUrlError('')).toBe('Enter the URL that receives the events.');
    expect(webhookUrlError('example.com/hook')).toMatch(/^Enter a full URL/);
    expect(webhookUrlError('ftp://example.com/hook')).toMatch(/^Use an https:\/\/ URL/);
    expect(webhookUrlError('javascript:alert(1)')).toMatch(/^Use an https:\/\/ URL/);
    expect(webhookUrlError('https://user:pw@example.com/hook')).toMatch(/user name and password/);
    expect(webhookUrlError(`https://example.com/${'a'.repeat(2048)}`)).toBe('Use at most 2048 characters.');
    expect(webhookUrlError(' https://example.com/hook ')).toBeNull();
    // Whether http:// or a private address is accepted is the server's to say (WEBHOOK_ALLOW_PRIVATE).
    expect(webhookUrlError('http://127.0.0.1:8080/hook')).toBeNull();
  });

  it('sends all events as null, chosen ones in their listed order, an empty description as null', () => {
    expect(checkWebhookDraft({ ...EMPTY_WEBHOOK_DRAFT, url: ' https://example.com/h ' })).toEqual({
      ok: true,
      input: { url: 'https://example.com/h', events: null, description: null },
    });
    expect(
      checkWebhookDraft({
        url: 'https://example.com/h',
        allEvents: false,
        events: ['wallet.frozen', 'payment.completed'],
        description: '  accounting ',
      }),
    ).toEqual({
      ok: true,
      input: {
        url: 'https://example.com/h',
        events: ['payment.completed', 'wallet.frozen'],
        description: 'accounting',
      },
    });
  });

  it('keeps every event type an endpoint is subscribed to, the newer ones too (an edit drops none)', () => {
    const events = [
      'security.factor_added',
      'payment.completed',
      'budget.threshold',
      'approval.recorded',
    ] as const;
    const check = checkWebhookDraft({
      url: 'https://example.com/h',
      allEvents: false,
      events: [...events],
      description: '',
    });
    expect(check.ok && [...(check.input.events ?? [])].sort()).toEqual([...events].sort());
  });

  it('names every bad field', () => {
    expect(
      checkWebhookDraft({ url: 'nope', allEvents: false, events: [], description: 'x'.repeat(201) }),
    ).toEqual({
      ok: false,
      errors: {
        url: 'Enter a full URL, e.g. https://example.com/webhooks.',
        events: 'Choose at least one event, or all events.',
        description: 'Use at most 200 characters (this has 201).',
      },
    });
  });

  it('turns the server’s refusal of a URL into a sentence for the field', () => {
    const refusal = (message: string) => urlRefusal(new ApiError('VALIDATION_ERROR', 400, message));
    expect(refusal('url must be an https:// URL')).toBe(
      'The server refused this URL: it must be an https:// URL.',
    );
    expect(refusal('url must not point to a loopback, private or link-local address')).toBe(
      'The server refused this URL: it must not point to a loopback, private or link-local address.',
    );
    expect(refusal('url: hooks.example does not resolve')).toBe(
      'The server refused this URL: hooks.example does not resolve.',
    );
    expect(refusal('a user can have at most 20 webhook endpoints')).toBeNull();
    expect(urlRefusal(new ApiError('INTERNAL_ERROR', 500, 'url is broken'))).toBeNull();
    expect(urlRefusal(null)).toBeNull();
  });

  it('never keeps the secret in the listed endpoint', () => {
    const listed = listedEndpoint({
      id: 'whk_1',
      url: 'https://example.com/h',
      events: null,
      description: null,
      secret: 'whsec_abc',
      createdAt: '2026-01-01T00:00:00Z',
    });
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    expect(listed).toEqual({
      id: 'whk_1',
      url: 'https://example.com/h',
      events: null,
      description: null,
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
    });
    expect(describeEvents(null)).toBe('All events');
    expect(describeEvents(['wallet.frozen', 'key.rotated'])).toBe('wallet.frozen, key.rotated');
  });
});

describe('delivery log', () => {
  const delivery = (fields: Partial<WebhookDelivery>): WebhookDelivery => ({
    id: 'dlv_1',
    eventId: 'evt_1',
    eventType: 'wallet.frozen',
    status: 'pending',
    attempts: 0,
    responseStatus: null,
    nextAttemptAt: null,
    lastError: null,
    createdAt: '2026-01-01T00:00:00Z',
    ...fields,
  });

  it('says what the last attempt got', () => {
    expect(describeLastResponse(delivery({}))).toBe('No attempt yet');
    expect(describeLastResponse(delivery({ status: 'delivered', attempts: 1, responseStatus: 200 }))).toBe(
      'HTTP 200',
    );
    expect(describeLastResponse(delivery({ attempts: 2, responseStatus: 500, lastError: 'boom' }))).toBe(
      'HTTP 500: boom',
    );
    expect(describeLastResponse(delivery({ attempts: 1, lastError: 'connect ECONNREFUSED' }))).toBe(
      'connect ECONNREFUSED',
    );
  });

  it('looks again soon only while a delivery is due within a minute', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(deliveryDueSoon([delivery({ status: 'delivered' })], now)).toBe(false);
    expect(deliveryDueSoon([delivery({})], now)).toBe(true);
    expect(deliveryDueSoon([delivery({ nextAttemptAt: '2026-01-01T00:00:30Z' })], now)).toBe(true);
    expect(deliveryDueSoon([delivery({ nextAttemptAt: '2026-01-01T02:00:00Z' })], now)).toBe(false);
  });

  it('filters by status, keeping the order; all when no status is chosen', () => {
    const list = [
      delivery({ id: 'a', status: 'delivered' }),
      delivery({ id: 'b', status: 'failed' }),
      delivery({ id: 'c', status: 'pending' }),
      delivery({ id: 'd', status: 'delivered' }),
    ];
    expect(filterDeliveries(list, '').map((d) => d.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(filterDeliveries(list, '')).not.toBe(list);
    expect(filterDeliveries(list, 'delivered').map((d) => d.id)).toEqual(['a', 'd']);
    expect(filterDeliveries(list, 'failed').map((d) => d.id)).toEqual(['b']);
    expect(filterDeliveries([], 'pending')).toEqual([]);
  });

  it('tells a 2xx from another HTTP status, a network error and no answer yet', () => {
    expect(answerKind({ responseStatus: 200, lastError: null })).toBe('ok');
    expect(answerKind({ responseStatus: 204, lastError: null })).toBe('ok');
    expect(answerKind({ responseStatus: 301, lastError: null })).toBe('http-error');
    expect(answerKind({ responseStatus: 500, lastError: 'boom' })).toBe('http-error');
    expect(answerKind({ responseStatus: null, lastError: 'connect ECONNREFUSED' })).toBe('network-error');
    expect(answerKind({ responseStatus: null, lastError: '  ' })).toBe('none');
    expect(answerKind({ responseStatus: null, lastError: null })).toBe('none');
  });

  it('counts the rows shown against the page and the whole log', () => {
    expect(deliveryCountText(2, 2, 2, false)).toBe('2 shown of 2.');
    expect(deliveryCountText(1, 2, 2, true)).toBe('1 shown of 2 (filtered).');
    expect(deliveryCountText(3, 20, 45, true)).toBe('3 shown of 20 on this page (45 in all) (filtered).');
  });
});

describe('editing an endpoint', () => {
  const endpoint: WebhookEndpoint = {
    id: 'whk_1',
    url: 'https://example.com/h',
    events: ['wallet.frozen', 'payment.completed'],
    description: 'accounting',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };

  it('starts from the endpoint as it is', () => {
    expect(draftOf(endpoint)).toEqual({
      url: 'https://example.com/h',
      allEvents: false,
      events: ['wallet.frozen', 'payment.completed'],
      description: 'accounting',
    });
    expect(draftOf({ ...endpoint, events: null, description: null })).toMatchObject({
      allEvents: true,
      events: [],
      description: '',
    });
  });

  it('sends only what changed; the same events in another order are no change', () => {
    const same = {
      url: endpoint.url,
      events: ['payment.completed', 'wallet.frozen'] as const,
      description: 'accounting',
    };
    expect(webhookChange(endpoint, { ...same, events: [...same.events] })).toEqual({});
    expect(webhookChange(endpoint, { ...same, events: null, description: null })).toEqual({
      events: null,
      description: null,
    });
    expect(
      webhookChange(endpoint, { ...same, events: ['wallet.frozen'], url: 'https://example.com/x' }),
    ).toEqual({
      url: 'https://example.com/x',
      events: ['wallet.frozen'],
    });
    expect(webhookChange({ ...endpoint, events: null }, { ...same, events: null })).toEqual({});
  });
});
