// @vitest-environment jsdom

import type { WebhookDelivery, WebhookEndpoint } from '@agent-wallet/sdk';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebhooksView } from '../src/views/WebhooksView.tsx';
import { pathOf, testServices } from './support/services.tsx';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const URL_OK = 'https://hooks.example.com/agent-wallet';

type Reply = { status: number; body: unknown };
const ok = (data: unknown, status = 200): Reply => ({ status, body: { success: true, data } });
const fail = (status: number, code: string, message: string): Reply => ({
  status,
  body: { success: false, error: { code, message } },
});

let routes: Record<string, Reply | ((body: unknown) => Reply)>;
const sent: { method: string; path: string; body: unknown }[] = [];

function endpoint(fields: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: 'whk_1',
    url: URL_OK,
    events: ['wallet.frozen'],
    description: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...fields,
  };
}

function delivery(fields: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: 'dlv_1',
    eventId: 'evt_1',
    eventType: 'wallet.frozen',
    status: 'delivered',
    attempts: 1,
    responseStatus: 200,
    nextAttemptAt: null,
    lastError: null,
    createdAt: '2026-01-01T00:00:00Z',
    ...fields,
  };
}

function services() {
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = pathOf(input);
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    sent.push({ method, path, body });
    const route = routes[`${method} ${path}`];
    const reply =
      route === undefined ? fail(404, 'NOT_FOUND', 'no') : typeof route === 'function' ? route(body) : route;
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  });
  return testServices(fetch);
}

function renderView() {
  const value = services();
  render(<div id="root">{value.wrap(<WebhooksView />)}</div>);
  return value;
}

const posts = () => sent.filter((r) => r.method === 'POST' && r.path === '/api/v1/webhooks');

async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

function submit() {
  fireEvent.click(screen.getByRole('button', { name: 'Add endpoint' }));
}

beforeEach(() => {
  sent.length = 0;
  routes = { 'GET /api/v1/webhooks': ok({ items: [], total: 0, page: 1, limit: 100 }) };
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('adding a webhook endpoint', () => {
  it('checks the form in the browser first: nothing is sent while a field is wrong', async () => {
    renderView();
    await screen.findByText(/No endpoints yet/);
    submit();
    expect(await screen.findByText('Enter the URL that receives the events.')).toBeTruthy();
    const url = screen.getByLabelText('Endpoint URL');
    expect(url.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(url, { target: { value: 'ftp://hooks.example.com' } });
    expect(screen.getByText(/^Use an https:\/\/ URL/)).toBeTruthy();
    fireEvent.change(url, { target: { value: URL_OK } });
    fireEvent.click(screen.getByRole('checkbox', { name: /All events/ }));
    submit();
    expect(await screen.findByText('Choose at least one event, or all events.')).toBeTruthy();
    await settle();
    expect(posts()).toHaveLength(0);
  });

  it('shows the server’s refusal of the URL under the URL field', async () => {
    routes['POST /api/v1/webhooks'] = fail(400, 'VALIDATION_ERROR', 'url must be an https:// URL');
    renderView();
    await screen.findByText(/No endpoints yet/);
    const url = screen.getByLabelText('Endpoint URL');
    fireEvent.change(url, { target: { value: 'http://hooks.example.com/h' } });
    submit();
    const message = await screen.findByText('The server refused this URL: it must be an https:// URL.');
    expect(message.className).toBe('field-error');
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(url.getAttribute('aria-describedby')).toContain(message.id);
    expect(screen.queryByRole('alert')).toBeNull();
    // Editing the URL clears the server's word on the old one.
    fireEvent.change(url, { target: { value: URL_OK } });
    expect(screen.queryByText(/The server refused this URL/)).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(url.getAttribute('aria-invalid')).toBeNull();
  });

  it('shows the signing secret once, with a copy button, and forgets it when closed', async () => {
    routes['POST /api/v1/webhooks'] = (body) => {
      const input = body as { url: string; events: string[] | null; description: string | null };
      return ok({ id: 'whk_1', ...input, secret: SECRET, createdAt: '2026-01-01T00:00:00Z' }, 201);
    };
    const writeText = vi.fn(async () => {});
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const { queryClient } = renderView();
    await screen.findByText(/No endpoints yet/);
    fireEvent.change(screen.getByLabelText('Endpoint URL'), { target: { value: URL_OK } });
    fireEvent.change(screen.getByLabelText('Description (optional)'), { target: { value: 'accounting' } });
    submit();

    const dialog = await screen.findByRole('dialog', { name: 'Copy your webhook signing secret' });
    expect(posts()[0]?.body).toEqual({ url: URL_OK, events: null, description: 'accounting' });
    expect(within(dialog).getByTestId('secret-warning').textContent).toMatch(
      /shown only once: you will not see it again/,
    );
    expect(dialog.getAttribute('aria-describedby')).toBe(screen.getByTestId('secret-warning').id);
    expect((within(dialog).getByTestId('webhook-secret') as HTMLInputElement).value).toBe(SECRET);
    // The copy button has focus, ready to press.
    const copy = within(dialog).getByRole('button', { name: 'Copy signing secret' });
    expect(document.activeElement).toBe(copy);
    fireEvent.click(copy);
    await settle();
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(within(dialog).getByText('Copied to the clipboard.')).toBeTruthy();
    // The list already shows the endpoint behind the dialog, without its secret.
    expect(JSON.stringify(queryClient.getQueryData(['webhooks']))).not.toContain(SECRET);

    fireEvent.click(within(dialog).getByRole('button', { name: 'I have stored the secret' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.body.innerHTML).not.toContain(SECRET);
    expect(JSON.stringify(sessionStorage)).not.toContain(SECRET);
    const item = screen.getByTestId('webhook-item');
    expect(within(item).getByTestId('webhook-url').textContent).toBe(URL_OK);
    expect(within(item).getByTestId('webhook-events').textContent).toBe('All events');
    expect(item.textContent).toContain('accounting');
    // The form is empty again.
    expect((screen.getByLabelText('Endpoint URL') as HTMLInputElement).value).toBe('');
  });
});

describe('an endpoint’s delivery log', () => {
  it('lists deliveries and redelivers one', async () => {
    routes['GET /api/v1/webhooks'] = ok({ items: [endpoint()], total: 1, page: 1, limit: 100 });
    routes['GET /api/v1/webhooks/whk_1/deliveries'] = ok({
      items: [
        delivery(),
        delivery({
          id: 'dlv_2',
          eventId: 'evt_2',
          status: 'failed',
          attempts: 12,
          responseStatus: 500,
          lastError: 'Internal <b>error</b>',
        }),
      ],
      total: 2,
      page: 1,
      limit: 20,
    });
    routes['POST /api/v1/webhooks/whk_1/deliveries/dlv_1/redeliver'] = ok(
      delivery({ status: 'pending', nextAttemptAt: '2026-01-01T00:00:00Z' }),
    );
    renderView();
    const item = await screen.findByTestId('webhook-item');
    const toggle = within(item).getByRole('button', { name: 'Delivery log' });
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const rows = await within(item).findAllByTestId('delivery-item');
    expect(rows.map((row) => row.dataset.status)).toEqual(['delivered', 'failed']);
    expect(within(item).getByTestId('delivery-list').tagName).toBe('TABLE');
    const headers = within(item)
      .getAllByRole('columnheader')
      .map((th) => th.textContent);
    expect(headers).toEqual(['Time', 'Event', 'Status', 'Attempts', 'Last answer', 'Actions']);
    expect(within(rows[0]!).getByTestId('delivery-response').textContent).toBe('HTTP 200');
    expect(within(rows[0]!).getByTestId('delivery-attempts').textContent).toBe('1');
    expect(rows[0]!.querySelector('time')?.getAttribute('datetime')).toBe('2026-01-01T00:00:00Z');
    expect(within(rows[1]!).getByTestId('delivery-response').textContent).toBe(
      'HTTP 500: Internal <b>error</b>',
    );
    expect(within(rows[1]!).getByTestId('delivery-response').className).toContain('answer-http-error');
    expect(within(rows[1]!).getByTestId('delivery-attempts').textContent).toBe('12');
    expect(within(item).getByTestId('delivery-count').textContent).toBe('2 shown of 2.');

    // The status filter narrows the rows shown, without a request.
    const gets = sent.length;
    const status = within(item).getByRole('group', { name: 'Filter deliveries' });
    fireEvent.change(within(status).getByLabelText('Status'), { target: { value: 'failed' } });
    const failed = within(item).getAllByTestId('delivery-item');
    expect(failed.map((row) => row.dataset.status)).toEqual(['failed']);
    expect(within(item).getByTestId('delivery-count').textContent).toBe('1 shown of 2 (filtered).');
    fireEvent.change(within(status).getByLabelText('Status'), { target: { value: 'pending' } });
    expect(within(item).getByText('No deliveries on this page match this status.')).toBeTruthy();
    fireEvent.change(within(status).getByLabelText('Status'), { target: { value: '' } });
    expect(sent.length).toBe(gets);

    const again = within(item).getAllByTestId('delivery-item');
    expect(again.map((row) => row.dataset.status)).toEqual(['delivered', 'failed']);
    fireEvent.click(within(again[0]!).getByRole('button', { name: 'Redeliver wallet.frozen' }));
    await settle();
    const after = within(item).getAllByTestId('delivery-item');
    expect(after[0]!.dataset.status).toBe('pending');
    expect(after[0]!.textContent).toContain('Next attempt');
    expect(screen.getByText('wallet.frozen is queued to be sent again.')).toBeTruthy();
  });

  it("each endpoint's buttons are described by its URL (screen readers hear which endpoint they act on)", async () => {
    const second = 'https://hooks.example.com/second';
    routes['GET /api/v1/webhooks'] = ok({
      items: [endpoint(), endpoint({ id: 'whk_2', url: second })],
      total: 2,
      page: 1,
      limit: 100,
    });
    renderView();
    const items = await screen.findAllByTestId('webhook-item');
    for (const [item, url] of [
      [items[0]!, URL_OK],
      [items[1]!, second],
    ] as const) {
      for (const name of ['Edit', 'Delete', 'Delivery log']) {
        expect(within(item).getByRole('button', { name, description: url })).toBeTruthy();
      }
    }
  });

  it('deletes an endpoint only after confirming', async () => {
    routes['GET /api/v1/webhooks'] = ok({ items: [endpoint()], total: 1, page: 1, limit: 100 });
    routes['DELETE /api/v1/webhooks/whk_1'] = ok({ id: 'whk_1', deleted: true });
    renderView();
    const item = await screen.findByTestId('webhook-item');
    fireEvent.click(within(item).getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete this webhook endpoint?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(sent.some((r) => r.method === 'DELETE')).toBe(false);
    fireEvent.click(within(item).getByRole('button', { name: 'Delete' }));
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete endpoint' }));
    await settle();
    expect(screen.queryByTestId('webhook-item')).toBeNull();
    expect(screen.getByText(/No endpoints yet/)).toBeTruthy();
  });
});

describe('editing a webhook endpoint', () => {
  const patches = () => sent.filter((r) => r.method === 'PATCH');
  const lists = () => sent.filter((r) => r.method === 'GET' && r.path === '/api/v1/webhooks');

  function listing(...items: WebhookEndpoint[]): Reply {
    return ok({ items, total: items.length, page: 1, limit: 100 });
  }

  /** Opens the dialog from the endpoint's Edit button (focused first, as a click in a browser does). */
  async function openEdit() {
    const item = await screen.findByTestId('webhook-item');
    const edit = within(item).getByRole('button', { name: 'Edit' });
    edit.focus();
    fireEvent.click(edit);
    const dialog = screen.getByRole('dialog', { name: 'Edit webhook endpoint' });
    return {
      item,
      edit,
      dialog,
      save: () => fireEvent.click(within(dialog).getByRole('button', { name: 'Save changes' })),
    };
  }

  it('prefills the form, checks it like the add form, sends only the change and reloads the list', async () => {
    const before = endpoint({ events: ['wallet.frozen'], description: 'accounting' });
    const after = endpoint({
      events: ['payment.completed'],
      description: 'ledger',
      updatedAt: '2026-01-02T00:00:00Z',
    });
    routes['GET /api/v1/webhooks'] = listing(before);
    routes['PATCH /api/v1/webhooks/whk_1'] = () => {
      routes['GET /api/v1/webhooks'] = listing(after);
      return ok(after);
    };
    renderView();
    const { item, edit, dialog, save } = await openEdit();
    const url = within(dialog).getByLabelText('Endpoint URL') as HTMLInputElement;
    const description = within(dialog).getByLabelText('Description (optional)') as HTMLInputElement;
    const box = (name: RegExp | string) => within(dialog).getByRole('checkbox', { name }) as HTMLInputElement;
    expect(url.value).toBe(URL_OK);
    expect(box(/All events/).checked).toBe(false);
    expect(box(/wallet\.frozen/).checked).toBe(true);
    expect(box(/payment\.completed/).checked).toBe(false);
    expect(description.value).toBe('accounting');
    expect(dialog.textContent).not.toMatch(/whsec_/);
    expect(within(dialog).queryByText(/secret stays the same/)).toBeTruthy();

    // The same checks as the add form, and nothing is sent while a field is wrong.
    fireEvent.change(url, { target: { value: '' } });
    fireEvent.click(box(/wallet\.frozen/));
    fireEvent.change(description, { target: { value: 'x'.repeat(201) } });
    save();
    expect(await within(dialog).findByText('Enter the URL that receives the events.')).toBeTruthy();
    expect(within(dialog).getByText('Choose at least one event, or all events.')).toBeTruthy();
    expect(within(dialog).getByText('Use at most 200 characters (this has 201).')).toBeTruthy();
    expect(url.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(url, { target: { value: 'ftp://hooks.example.com' } });
    expect(within(dialog).getByText(/^Use an https:\/\/ URL/)).toBeTruthy();
    await settle();
    expect(patches()).toHaveLength(0);

    fireEvent.change(url, { target: { value: ` ${URL_OK} ` } });
    fireEvent.click(box(/payment\.completed/));
    fireEvent.change(description, { target: { value: ' ledger ' } });
    const listsBefore = lists().length;
    save();
    await settle();
    await settle();
    // The URL is unchanged, so it is not sent (nor checked again by the server).
    expect(patches().map((r) => r.body)).toEqual([{ events: ['payment.completed'], description: 'ledger' }]);
    expect(patches()[0]?.path).toBe('/api/v1/webhooks/whk_1');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(edit);
    expect(lists().length).toBe(listsBefore + 1);
    expect(within(item).getByTestId('webhook-events').textContent).toBe('payment.completed');
    expect(item.textContent).toContain('ledger');
    expect(item.textContent).not.toContain('accounting');
    expect(screen.getByRole('status').textContent).toBe(`The endpoint ${URL_OK} is saved.`);
  });

  it('switches to all events and clears the description (sent as null)', async () => {
    routes['GET /api/v1/webhooks'] = listing(endpoint({ description: 'accounting' }));
    routes['PATCH /api/v1/webhooks/whk_1'] = ok(endpoint({ events: null }));
    renderView();
    const { dialog, save } = await openEdit();
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /All events/ }));
    expect(within(dialog).queryByRole('list', { name: 'Event types' })).toBeNull();
    fireEvent.change(within(dialog).getByLabelText('Description (optional)'), { target: { value: '  ' } });
    save();
    await settle();
    expect(patches().map((r) => r.body)).toEqual([{ events: null, description: null }]);
  });

  it('shows the server’s errors in the dialog, which stays open; Escape closes it, focus goes back', async () => {
    const original = endpoint();
    routes['GET /api/v1/webhooks'] = listing(original);
    routes['PATCH /api/v1/webhooks/whk_1'] = fail(400, 'VALIDATION_ERROR', 'url must be an https:// URL');
    renderView();
    const { item, edit, dialog, save } = await openEdit();
    const url = within(dialog).getByLabelText('Endpoint URL');
    fireEvent.change(url, { target: { value: 'http://hooks.example.com/h' } });
    save();
    const message = await within(dialog).findByText(
      'The server refused this URL: it must be an https:// URL.',
    );
    expect(message.className).toBe('field-error');
    expect(url.getAttribute('aria-describedby')).toContain(message.id);
    expect(patches().map((r) => r.body)).toEqual([{ url: 'http://hooks.example.com/h' }]);

    routes['PATCH /api/v1/webhooks/whk_1'] = fail(404, 'NOT_FOUND', 'webhook endpoint not found');
    fireEvent.change(url, { target: { value: 'https://other.example.com/h' } });
    save();
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toMatch(/^Not found/);
    expect(screen.getByRole('dialog', { name: 'Edit webhook endpoint' })).toBe(dialog);

    const cancel = new Event('cancel', { cancelable: true });
    act(() => {
      dialog.dispatchEvent(cancel);
    });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(edit);
    expect(within(item).getByTestId('webhook-url').textContent).toBe(URL_OK);
  });

  it('sends nothing when nothing changed, and opens afresh from the endpoint each time', async () => {
    routes['GET /api/v1/webhooks'] = listing(endpoint());
    renderView();
    const first = await openEdit();
    fireEvent.change(within(first.dialog).getByLabelText('Endpoint URL'), {
      target: { value: 'https://typed.example.com' },
    });
    fireEvent.click(within(first.dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    const second = await openEdit();
    expect((within(second.dialog).getByLabelText('Endpoint URL') as HTMLInputElement).value).toBe(URL_OK);
    second.save();
    await settle();
    expect(patches()).toHaveLength(0);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
