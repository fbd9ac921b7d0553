// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../src/App.tsx';

function base64url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function storeSession(expSeconds: number) {
  const token = `${base64url('{"alg":"HS256"}')}.${base64url(JSON.stringify({ sub: 'usr_1', exp: expSeconds }))}.sig`;
  sessionStorage.setItem(
    'agent-wallet.session',
    JSON.stringify({
      token,
      user: { id: 'usr_1', email: 'owner@example.com', createdAt: '2026-01-01T00:00:00Z' },
    }),
  );
}

const envelope = (data: unknown) => ({ status: 200, body: { success: true, data } });
const DATA: Record<string, { status: number; body: unknown }> = {
  '/api/v1/health': envelope({ status: 'ok', version: '0.1.0', database: 'up', rail: 'sandbox' }),
  '/api/v1/wallet': envelope({
    id: 'wal_m',
    address: `0x${'a'.repeat(40)}`,
    balance: '1234.500000',
    currency: 'USDC',
    createdAt: '2026-01-01T00:00:00Z',
  }),
  '/api/v1/wallet/deposits': envelope({ items: [], total: 0, page: 1, limit: 10 }),
  '/api/v1/agent-wallets': envelope({ items: [], total: 0, page: 1, limit: 100 }),
};

let replies: Record<string, { status: number; body: unknown }>;
const requested: string[] = [];

beforeEach(() => {
  sessionStorage.clear();
  replies = { ...DATA };
  requested.length = 0;
  history.replaceState(null, '', '/');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = new URL(String(input), location.href).pathname;
      requested.push(`${init?.method ?? 'GET'} ${path}`);
      const reply = replies[path] ?? {
        status: 404,
        body: { success: false, error: { code: 'NOT_FOUND', message: 'no' } },
      };
      return new Response(JSON.stringify(reply.body), { status: reply.status });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

describe('App session', () => {
  it('restores the session after a reload and shows the SANDBOX marker', async () => {
    storeSession(Math.floor(Date.now() / 1000) + 3600);
    render(<App />);
    await screen.findByText('1,234.50 USDC');
    expect(screen.getByTestId('sandbox-banner').textContent).toContain('SANDBOX');
    expect(screen.getByText('owner@example.com')).toBeTruthy();
  });

  it('on the evm rail: no SANDBOX marker, and USDC comes in on chain to the master address', async () => {
    storeSession(Math.floor(Date.now() / 1000) + 3600);
    replies['/api/v1/health'] = envelope({
      status: 'ok',
      version: '0.1.0',
      database: 'up',
      rail: 'evm',
      confirmations: 3,
      explorerUrl: 'https://explorer.example',
    });
    replies['/api/v1/wallet/deposits/pending'] = envelope({ items: [], total: 0, page: 1, limit: 20 });
    // The master wallet has its own page; the overview is the first one.
    history.replaceState(null, '', '/master');
    render(<App />);
    await screen.findByText('No deposits on their way.');
    expect(screen.queryByTestId('sandbox-banner')).toBeNull();
    expect(screen.queryByTestId('sandbox-pill')).toBeNull();
    expect(document.body.textContent).not.toMatch(/simulated|sandbox/i);
    expect(screen.queryByLabelText('Amount to deposit')).toBeNull();
    expect(screen.getByTestId('deposit-address').textContent).toBe(`0x${'a'.repeat(40)}`);
    expect(screen.getByTestId('chain-deposit').textContent).toContain('3 blocks deep');
    expect(requested).not.toContain('POST /api/v1/wallet/sandbox/deposit');
  });

  it('ends the session at the token exp, back to login with a message', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    storeSession(Math.floor(Date.now() / 1000) + 5);
    render(<App />);
    await settle();
    expect(screen.queryByRole('heading', { name: 'Log in' })).toBeNull();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(6000);
    });
    expect(screen.getByRole('heading', { name: 'Log in' })).toBeTruthy();
    expect(screen.getByTestId('auth-notice').textContent).toBe(
      'Your session has expired. Please log in again.',
    );
    expect(sessionStorage.length).toBe(0);
  });

  it('does not restore an already expired session', async () => {
    storeSession(Math.floor(Date.now() / 1000) - 1);
    render(<App />);
    await settle();
    expect(screen.getByTestId('auth-notice').textContent).toMatch(/expired/);
    expect(requested.filter((r) => !r.endsWith('/health'))).toEqual([]);
  });

  it('ends the session on any 401 with a message', async () => {
    storeSession(Math.floor(Date.now() / 1000) + 3600);
    replies['/api/v1/wallet'] = {
      status: 401,
      body: {
        success: false,
        error: { code: 'UNAUTHORIZED', message: 'the session token is invalid, expired or logged out' },
      },
    };
    render(<App />);
    await screen.findByRole('heading', { name: 'Log in' });
    expect(screen.getByTestId('auth-notice').textContent).toBe(
      'Your session has ended. Please log in again.',
    );
    expect(sessionStorage.length).toBe(0);
  });
});

const organization = (role: string) =>
  envelope({
    id: 'org_1',
    requireMfa: false,
    createdAt: '2026-01-01T00:00:00Z',
    role,
  });

describe('App in an organization', () => {
  it('offers the sandbox deposit to an admin, not to a viewer (what a role cannot do is not shown)', async () => {
    storeSession(Math.floor(Date.now() / 1000) + 3600);
    replies['/api/v1/organization'] = organization('viewer');
    history.replaceState(null, '', '/master');
    render(<App />);
    await screen.findByText('1,234.50 USDC');
    await screen.findByTestId('account-role');
    expect(screen.getByTestId('account-role').textContent).toBe('Viewer');
    expect(screen.queryByLabelText('Amount to deposit')).toBeNull();
    cleanup();

    replies['/api/v1/organization'] = organization('admin');
    render(<App />);
    await screen.findByLabelText('Amount to deposit');
    expect(screen.getByTestId('account-role').textContent).toBe('Admin');
  });

  it('MFA_ENROLLMENT_REQUIRED sends the member to enrol on the Security page, once, without a refusal loop', async () => {
    storeSession(Math.floor(Date.now() / 1000) + 3600);
    const refused = {
      status: 403,
      body: {
        success: false,
        error: { code: 'MFA_ENROLLMENT_REQUIRED', message: 'the organization requires a second factor' },
      },
    };
    replies['/api/v1/organization'] = organization('approver');
    replies['/api/v1/wallet'] = refused;
    replies['/api/v1/wallet/deposits'] = refused;
    replies['/api/v1/agent-wallets'] = refused;
    replies['/api/v1/auth/mfa'] = envelope({ totp: false, passkeys: 0, recoveryCodesLeft: 0 });
    render(<App />);
    const notice = await screen.findByTestId('mfa-enrolment-required');
    expect(notice.textContent).toMatch(/requires a second factor/);
    await screen.findByRole('heading', { name: 'Security', level: 1 });
    expect(location.pathname).toBe('/security');
    await screen.findByTestId('mfa-summary');
    // Only enrolment is offered: no nav to pages the server refuses, no sessions or events asked for.
    expect(screen.queryByTestId('nav-approvals')).toBeNull();
    const before = requested.filter(
      (r) => r.includes('/agent-wallets') || r.startsWith('GET /api/v1/wallet'),
    );
    await settle();
    await settle();
    const after = requested.filter((r) => r.includes('/agent-wallets') || r.startsWith('GET /api/v1/wallet'));
    expect(after.length).toBe(before.length);
    // What the first page asked for before the refusal came back, once each: nothing asked again.
    expect(new Set(after).size).toBe(after.length);
    expect(requested).not.toContain('GET /api/v1/auth/sessions');
    expect(requested).not.toContain('GET /api/v1/auth/passkeys');
  });

  it('once a factor is enrolled, the member is back where they were going (an app’s consent request)', async () => {
    storeSession(Math.floor(Date.now() / 1000) + 3600);
    const consent = '/oauth/authorize?client_id=c1&redirect_uri=https%3A%2F%2Fclaude.ai%2Fcb&state=st8';
    history.replaceState(null, '', consent);
    replies['/api/v1/organization'] = organization('admin');
    // Refused until the member has a factor (the first ask), answered after.
    let previews = 0;
    Object.defineProperty(replies, '/api/v1/oauth/consent/preview', {
      enumerable: true,
      get: () => {
        previews += 1;
        return previews === 1
          ? {
              status: 403,
              body: {
                success: false,
                error: {
                  code: 'MFA_ENROLLMENT_REQUIRED',
                  message: 'the organization requires a second factor',
                },
              },
            }
          : envelope({
              client: { clientId: 'c1', name: 'Claude', redirectHost: 'claude.ai', metadataDocument: false },
              scopes: ['read', 'write'],
              resource: 'http://localhost/mcp',
            });
      },
    });
    // The factor is there by the time the Security page asks (enrolled a moment ago, or in another tab).
    replies['/api/v1/auth/mfa'] = envelope({ totp: true, passkeys: 0, recoveryCodesLeft: 10 });
    render(<App />);
    await waitFor(() => expect(requested).toContain('GET /api/v1/auth/mfa'));
    await waitFor(() => expect(location.pathname + location.search).toBe(consent));
    await screen.findByRole('heading', { name: 'Allow Claude to use an agent wallet?' });
    expect(screen.queryByTestId('mfa-enrolment-required')).toBeNull();
  });
});
