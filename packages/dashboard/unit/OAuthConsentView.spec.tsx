// @vitest-environment jsdom

import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/App.tsx';
import type { Role } from '../src/roles.ts';
import { OAuthConsentView } from '../src/views/OAuthConsentView.tsx';
import { StepUpProvider } from '../src/views/StepUp.tsx';
import { pathOf, testServices } from './support/services.tsx';

type Reply = { status: number; body: unknown };
const ok = (data: unknown, status = 200): Reply => ({ status, body: { success: true, data } });
const fail = (status: number, code: string, message: string, extra = {}): Reply => ({
  status,
  body: { success: false, error: { code, message, ...extra } },
});

/** Each route answers from its queue, one reply per request, the last one again when the queue runs dry. */
let routes: Record<string, Reply[]>;
const sent: { method: string; path: string; body: unknown }[] = [];

const fetchFake = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
  const path = pathOf(input);
  const method = init?.method ?? 'GET';
  const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
  sent.push({ method, path, body });
  const queue = routes[`${method} ${path}`];
  const reply =
    (queue !== undefined && queue.length > 1 ? queue.shift() : queue?.[0]) ?? fail(404, 'NOT_FOUND', 'no');
  return new Response(JSON.stringify(reply.body), { status: reply.status });
});

const SEARCH =
  'response_type=code&client_id=https%3A%2F%2Fclaude.ai%2Fmeta&redirect_uri=https%3A%2F%2Fclaude.ai%2Fcb' +
  '&code_challenge=ch4llenge&code_challenge_method=S256&resource=http%3A%2F%2Flocalhost%2Fmcp&scope=read&state=st8';
/** The query as the preview and consent bodies carry it. */
const REQUEST = {
  responseType: 'code',
  clientId: 'https://claude.ai/meta',
  redirectUri: 'https://claude.ai/cb',
  codeChallenge: 'ch4llenge',
  codeChallengeMethod: 'S256',
  resource: 'http://localhost/mcp',
  scope: 'read',
  state: 'st8',
};
const PREVIEW = {
  client: {
    clientId: 'https://claude.ai/meta',
    name: 'Claude',
    redirectHost: 'claude.ai',
    metadataDocument: true,
  },
  scopes: ['read'],
  resource: 'http://localhost/mcp',
};
const wallet = (id: string, label: string) => ({
  id,
  label,
  address: `0x${'b'.repeat(40)}`,
  balance: '0.000000',
  heldBalance: '0.000000',
  frozen: false,
  pendingApprovals: 0,
  createdAt: '2026-01-01T00:00:00Z',
});
const WALLETS = {
  items: [wallet('wal_1', 'Research bot'), wallet('wal_2', 'Shopping bot')],
  total: 2,
  page: 1,
  limit: 100,
};
const REDIRECT = 'https://claude.ai/cb?code=c0de&state=st8';

function mount(role: Role = 'owner') {
  const { wrap } = testServices(fetchFake, { role });
  const leave = vi.fn();
  render(
    wrap(
      <>
        <OAuthConsentView search={SEARCH} leave={leave} />
        <StepUpProvider />
      </>,
    ),
  );
  return leave;
}

async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

const consentCalls = () => sent.filter((r) => r.path === '/api/v1/oauth/consent');
const denyCalls = () => sent.filter((r) => r.path === '/api/v1/oauth/consent/deny');

beforeEach(() => {
  sent.length = 0;
  fetchFake.mockClear();
  routes = {
    'POST /api/v1/oauth/consent/preview': [ok(PREVIEW)],
    'GET /api/v1/agent-wallets': [ok(WALLETS)],
    'POST /api/v1/oauth/consent': [ok({ redirectTo: REDIRECT })],
    'POST /api/v1/oauth/consent/deny': [ok({ redirectTo: REDIRECT })],
  };
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  history.replaceState(null, '', '/');
  sessionStorage.clear();
});

describe('the consent page', () => {
  it('names the app and where it sends the browser back, with the scopes it asked for ticked', async () => {
    mount();
    await screen.findByRole('heading', { name: 'Allow Claude to use an agent wallet?' });
    expect(screen.getByTestId('consent-client').textContent).toContain(
      'Claude at claude.ai wants to use an agent wallet.',
    );
    expect(screen.getByTestId('consent-client-kind').textContent).toContain('https://claude.ai/meta');
    expect(sent[0]).toEqual({ method: 'POST', path: '/api/v1/oauth/consent/preview', body: REQUEST });
    const read = screen.getByRole('checkbox', { name: 'Read' }) as HTMLInputElement;
    const write = screen.getByRole('checkbox', { name: 'Write' }) as HTMLInputElement;
    expect([read.checked, write.checked, write.disabled]).toEqual([true, false, true]);
    const select = screen.getByRole('combobox', { name: 'Agent wallet' });
    await within(select).findByRole('option', { name: 'Research bot' });
    expect(screen.getByRole('button', { name: 'Deny' })).toBeTruthy();
  });

  it('Allow: the chosen wallet and scopes, through step-up like a new key, then back to the app', async () => {
    routes['POST /api/v1/oauth/consent'] = [
      fail(403, 'STEP_UP_REQUIRED', 'needs presence', { methods: ['password'] }),
      ok({ redirectTo: REDIRECT }),
    ];
    routes['POST /api/v1/auth/step-up'] = [ok({ steppedUpAt: '2026-01-01T00:00:00Z' })];
    const leave = mount();
    const select = await screen.findByRole('combobox', { name: 'Agent wallet' });
    await within(select).findByRole('option', { name: 'Shopping bot' });
    fireEvent.change(select, { target: { value: 'wal_2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Allow' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirm it’s you' });
    fireEvent.change(within(dialog).getByLabelText('Your password'), { target: { value: 'pw' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await screen.findByTestId('consent-sent');
    expect(leave).toHaveBeenCalledWith(REDIRECT);
    const calls = consentCalls();
    expect(calls).toHaveLength(2);
    expect(calls[1]?.body).toEqual({ ...REQUEST, decision: 'allow', walletId: 'wal_2', scopes: ['read'] });
    // The code is single use: no second decision from this page.
    expect(screen.queryByRole('button', { name: 'Allow' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Deny' })).toBeNull();
  });

  it('Allow needs a wallet and a scope: said so, nothing sent', async () => {
    const leave = mount();
    await screen.findByRole('combobox', { name: 'Agent wallet' });
    fireEvent.click(screen.getByRole('button', { name: 'Allow' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Choose an agent wallet.');
    fireEvent.change(screen.getByRole('combobox', { name: 'Agent wallet' }), { target: { value: 'wal_1' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Read' }));
    fireEvent.click(screen.getByRole('button', { name: 'Allow' }));
    expect(screen.getByRole('alert').textContent).toBe('Choose at least one scope.');
    await settle();
    expect(consentCalls()).toHaveLength(0);
    expect(leave).not.toHaveBeenCalled();
  });

  it('creates a wallet for the app and chooses it', async () => {
    const created = wallet('wal_new', 'Claude');
    routes['POST /api/v1/agent-wallets'] = [ok(created, 201)];
    mount();
    const select = (await screen.findByRole('combobox', { name: 'Agent wallet' })) as HTMLSelectElement;
    await within(select).findByRole('option', { name: 'Research bot' });
    fireEvent.change(screen.getByLabelText('Or create a new wallet'), { target: { value: ' Claude ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create wallet' }));
    await within(select).findByRole('option', { name: 'Claude' });
    expect(select.value).toBe('wal_new');
    expect(sent.find((r) => r.path === '/api/v1/agent-wallets' && r.method === 'POST')?.body).toEqual({
      label: 'Claude',
    });
  });

  it('Deny sends the request back refused, and the browser follows the server', async () => {
    const denied = 'https://claude.ai/cb?error=access_denied&state=st8';
    routes['POST /api/v1/oauth/consent/deny'] = [ok({ redirectTo: denied })];
    const leave = mount();
    fireEvent.click(await screen.findByRole('button', { name: 'Deny' }));
    await screen.findByTestId('consent-sent');
    expect(denyCalls()[0]?.body).toEqual(REQUEST);
    expect(consentCalls()).toHaveLength(0);
    expect(leave).toHaveBeenCalledWith(denied);
  });

  it('a request the server calls invalid is shown, with no button and no redirect', async () => {
    routes['POST /api/v1/oauth/consent/preview'] = [
      fail(400, 'OAUTH_INVALID_REQUEST', 'redirect_uri is not one this client registered'),
    ];
    const leave = mount();
    await screen.findByRole('heading', { name: 'This request cannot be used' });
    expect(screen.getByTestId('consent-invalid').textContent).toBe(
      'This request to connect an app is not valid: redirect_uri is not one this client registered. Start again from the app.',
    );
    expect(screen.queryByRole('button', { name: 'Allow' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Deny' })).toBeNull();
    expect(consentCalls()).toHaveLength(0);
    expect(leave).not.toHaveBeenCalled();
  });

  it('below admin: why, and Deny alone', async () => {
    mount('viewer');
    await screen.findByRole('heading', { name: 'Allow Claude to use an agent wallet?' });
    expect(screen.getByTestId('consent-role').textContent).toMatch(/^As a Viewer, you do not have the right/);
    expect(screen.queryByRole('button', { name: 'Allow' })).toBeNull();
    expect(screen.queryByRole('combobox', { name: 'Agent wallet' })).toBeNull();
    const denied = 'https://claude.ai/cb?error=access_denied&state=st8';
    routes['POST /api/v1/oauth/consent/deny'] = [ok({ redirectTo: denied })];
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    await screen.findByTestId('consent-sent');
    expect(denyCalls()[0]?.body).toEqual(REQUEST);
  });

  it('never sends the browser to a script address, whatever the server says', async () => {
    routes['POST /api/v1/oauth/consent/deny'] = [ok({ redirectTo: 'javascript:alert(1)' })];
    const leave = mount();
    fireEvent.click(await screen.findByRole('button', { name: 'Deny' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/unexpected answer/);
    expect(leave).not.toHaveBeenCalled();
  });
});

describe('arriving logged out', () => {
  function base64url(text: string): string {
    return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  it('logs in on the same address, then the consent page follows with the app’s query intact', async () => {
    const token = `${base64url('{"alg":"HS256"}')}.${base64url(JSON.stringify({ sub: 'usr_1', exp: Math.floor(Date.now() / 1000) + 3600 }))}.sig`;
    routes['GET /api/v1/health'] = [ok({ status: 'ok', version: '0.1.0', database: 'up', rail: 'sandbox' })];
    routes['GET /api/v1/organization'] = [
      ok({ id: 'org_1', name: 'Acme', role: 'owner', requireMfa: false }),
    ];
    routes['POST /api/v1/auth/login'] = [
      ok({ user: { id: 'usr_1', email: 'owner@example.com', createdAt: '2026-01-01T00:00:00Z' }, token }),
    ];
    vi.stubGlobal('fetch', fetchFake);
    history.replaceState(null, '', `/oauth/authorize?${SEARCH}`);
    render(<App />);
    await screen.findByRole('heading', { name: 'Log in' });
    expect(screen.getByTestId('auth-notice').textContent).toMatch(
      /An app is asking to use one of your agent wallets/,
    );
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'owner@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'correct horse' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));
    await screen.findByRole('heading', { name: 'Allow Claude to use an agent wallet?' });
    expect(location.pathname + location.search).toBe(`/oauth/authorize?${SEARCH}`);
    expect(sent.find((r) => r.path === '/api/v1/oauth/consent/preview')?.body).toEqual(REQUEST);
    // The consent page stands alone: no navigation away from the app's request.
    expect(screen.queryByRole('navigation', { name: 'Main' })).toBeNull();
  });
});
