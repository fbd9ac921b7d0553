// @vitest-environment jsdom

import type { AgentWallet } from '@agent-wallet/sdk';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectedAppName, isConnectedApp } from '../src/views/connections.ts';
import { KeysPanel } from '../src/views/keys/KeysPanel.tsx';
import { pathOf, testServices } from './support/services.tsx';

const WALLET = { id: 'wal_1', label: 'Research bot' } as unknown as AgentWallet;
const BASE = {
  walletId: 'wal_1',
  status: 'active',
  createdAt: '2026-01-01T00:00:00Z',
  expiresAt: null,
  revokedAt: null,
  rotatedToKeyId: null,
};
const KEY = {
  ...BASE,
  id: 'key_1',
  type: 'api_key',
  clientName: null,
  prefix: 'svc_live_ab12',
  label: 'production',
  scopes: ['read', 'write'],
  lastUsedAt: null,
};
const APP = {
  ...BASE,
  id: 'oat_1',
  type: 'oauth',
  clientName: 'Claude',
  prefix: 'svc_oat_',
  label: 'Claude',
  scopes: ['read'],
  lastUsedAt: '2026-01-02T00:00:00Z',
};

function mount(role: 'owner' | 'viewer' = 'owner') {
  const requests: string[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = pathOf(input);
    requests.push(`${init?.method ?? 'GET'} ${path}`);
    const data = path.endsWith('/revoke')
      ? { ...APP, status: 'revoked', revokedAt: '2026-01-03T00:00:00Z' }
      : { items: [APP, KEY], total: 2, page: 1, limit: 100 };
    return new Response(JSON.stringify({ success: true, data }), { status: 200 });
  });
  const { wrap } = testServices(fetch, { role });
  render(wrap(<KeysPanel wallet={WALLET} />));
  return requests;
}

afterEach(cleanup);

describe('connected apps in the keys list', () => {
  it('tells an OAuth connection from an API key, by the app’s name', () => {
    expect(isConnectedApp(APP as never)).toBe(true);
    expect(isConnectedApp(KEY as never)).toBe(false);
    // A server from before OAuth sends no type: an API key.
    expect(isConnectedApp({ ...KEY, type: undefined } as never)).toBe(false);
    expect(connectedAppName(APP as never)).toBe('Claude');
    expect(connectedAppName({ ...APP, clientName: null, label: 'Cursor' } as never)).toBe('Cursor');
  });

  it('shows the app by name with scopes and last use, Revoke and no Rotate', async () => {
    mount();
    const app = await screen.findByTestId('connected-app');
    expect(app.textContent).toContain('Connected app: Claude');
    expect(app.textContent).toContain('Scopes');
    expect(app.textContent).not.toContain('svc_oat_');
    expect(within(app).queryByRole('button', { name: 'Rotate' })).toBeNull();
    within(app).getByRole('button', { name: 'Revoke' });
    // The API key beside it keeps both.
    const key = screen.getByTestId('key-item');
    within(key).getByRole('button', { name: 'Rotate' });
  });

  it('revokes the connection through the keys’ revoke route', async () => {
    const requests = mount();
    const app = await screen.findByTestId('connected-app');
    fireEvent.click(within(app).getByRole('button', { name: 'Revoke' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke the connection of “Claude”?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke access' }));
    await screen.findByText('The connection of “Claude” is revoked.');
    expect(requests).toContain('POST /api/v1/agent-wallets/wal_1/keys/oat_1/revoke');
    expect(screen.getByTestId('connected-app').getAttribute('data-status')).toBe('revoked');
  });

  it('a viewer sees the connection, not Revoke', async () => {
    mount('viewer');
    const app = await screen.findByTestId('connected-app');
    expect(within(app).queryByRole('button', { name: 'Revoke' })).toBeNull();
  });
});
