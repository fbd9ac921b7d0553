// @vitest-environment jsdom
// A wallet's Alerts card against a fake server: listed with their thresholds and firing state, added and
// deleted by an admin; a viewer sees them and no controls.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Alert } from '../src/api/alerts.ts';
import type { Role } from '../src/roles.ts';
import { AlertsCard } from '../src/views/AlertsCard.tsx';
import { pathOf, testServices } from './support/services.tsx';

afterEach(cleanup);

function server(role: Role, start: Alert[]) {
  let alerts = [...start];
  const calls: { method: string; path: string; query: string; body: unknown }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path: pathOf(input), query: url.search, body });
    let data: unknown;
    if (method === 'GET') data = { items: alerts };
    else if (method === 'POST') {
      const created = {
        id: `alr_${alerts.length + 1}`,
        firing: false,
        createdAt: '2026-11-27T10:00:00Z',
        ...body,
      };
      alerts = [created, ...alerts];
      data = created;
    } else {
      const id = url.pathname.split('/').at(-1) ?? '';
      alerts = alerts.filter((alert) => alert.id !== id);
      data = { id, deleted: true };
    }
    return new Response(JSON.stringify({ success: true, data }), {
      status: method === 'POST' ? 201 : 200,
      headers: { 'content-type': 'application/json' },
    });
  });
  const services = testServices(fetch, { role });
  render(services.wrap(<AlertsCard walletId="wal_a" agent />));
  return calls;
}

const FIRING: Alert = {
  id: 'alr_1',
  type: 'balance_below',
  walletId: 'wal_a',
  params: { amount: '20.000000' },
  firing: true,
  createdAt: '2026-11-26T10:00:00Z',
};

describe('AlertsCard', () => {
  it('lists the wallet’s alerts, adds a cap alert and deletes one (admin)', async () => {
    const calls = server('admin', [FIRING]);
    const row = await screen.findByTestId('alert-row');
    expect(within(row).getByText('Balance below')).toBeTruthy();
    expect(within(row).getByText('Below 20.00 USDC')).toBeTruthy();
    expect(within(row).getByText('firing')).toBeTruthy();
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/api/v1/alerts', query: '?walletId=wal_a' });

    fireEvent.change(screen.getByLabelText('Alert when'), { target: { value: 'cap_used' } });
    fireEvent.change(screen.getByLabelText('Share of a cap (%)'), { target: { value: '150' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add alert' }));
    expect(await screen.findByText('Enter a percentage from 1 to 100.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Share of a cap (%)'), { target: { value: '80' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add alert' }));
    await screen.findByText('At 80 % of any spending cap');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      type: 'cap_used',
      walletId: 'wal_a',
      params: { percent: 80 },
    });

    fireEvent.click(screen.getByRole('button', { name: /Delete the alert: Balance below/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this alert?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete alert' }));
    await waitFor(() => expect(screen.queryByText('Below 20.00 USDC')).toBeNull());
    expect(calls.some((call) => call.method === 'DELETE' && call.path === '/api/v1/alerts/alr_1')).toBe(true);
  });

  it('shows a viewer the alerts and no way to change them', async () => {
    server('viewer', [FIRING]);
    await screen.findByTestId('alert-row');
    expect(screen.queryByRole('button', { name: /Delete/ })).toBeNull();
    expect(screen.queryByRole('form', { name: 'Add an alert' })).toBeNull();
    expect(screen.getByTestId('alerts-read-only')).toBeTruthy();
  });
});
