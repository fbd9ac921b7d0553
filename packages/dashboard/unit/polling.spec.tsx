// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../src/api/client.ts';
import { Api } from '../src/api/endpoints.ts';
import type { AgentWallet } from '../src/api/types.ts';
import { AppContext, type AppServices } from '../src/app-context.ts';
import { Cache } from '../src/cache.ts';
import { pendingTotal, useAgentWallets } from '../src/data.ts';
import { POLL_INTERVAL_MS, usePolling } from '../src/polling.ts';

function wallet(id: string, pendingApprovals: number): AgentWallet {
  return {
    id,
    label: id,
    address: `0x${'1'.repeat(40)}`,
    balance: '1.000000',
    heldBalance: '0.000000',
    currency: 'USDC',
    frozen: false,
    dailyCapRemaining: null,
    totalCapRemaining: null,
    pendingApprovals,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

let visibility: DocumentVisibilityState = 'visible';
let pending = 0;
let remaining = 30;
const urls: string[] = [];

function Badge() {
  usePolling();
  const wallets = useAgentWallets();
  return <span data-testid="badge">{pendingTotal(wallets.data)}</span>;
}

function renderBadge() {
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    urls.push(String(input));
    const body = {
      success: true,
      data: { items: [wallet('a', pending), wallet('b', 1)], total: 2, page: 1, limit: 100 },
    };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'ratelimit-limit': '30', 'ratelimit-remaining': String(remaining), 'ratelimit-reset': '60' },
    });
  });
  const client = new ApiClient({ fetch: fetch as unknown as typeof globalThis.fetch, getToken: () => 't' });
  const services: AppServices = {
    api: new Api(client),
    cache: new Cache(),
    session: { token: 't', user: { id: 'u', email: 'a@b.co', createdAt: '' }, expiresAt: Date.now() + 1e9 },
    sandbox: true,
    chain: null,
    logout: async () => {},
  };
  render(
    <AppContext.Provider value={services}>
      <Badge />
    </AppContext.Provider>,
  );
}

async function tick(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  visibility = 'visible';
  pending = 0;
  remaining = 30;
  urls.length = 0;
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('approval polling', () => {
  it('polls the one wallet list every 15 s and updates the badge without a reload', async () => {
    renderBadge();
    await tick(0);
    expect(screen.getByTestId('badge').textContent).toBe('1');
    expect(urls).toEqual(['/api/v1/agent-wallets?page=1&limit=100']);
    pending = 2;
    await tick(POLL_INTERVAL_MS);
    expect(screen.getByTestId('badge').textContent).toBe('3');
    await tick(POLL_INTERVAL_MS * 3);
    // Only ever the list: never a per-wallet request.
    expect(urls).toHaveLength(5);
    expect(new Set(urls)).toEqual(new Set(['/api/v1/agent-wallets?page=1&limit=100']));
  });

  it('does not poll while the tab is hidden, and catches up when it is shown again', async () => {
    renderBadge();
    await tick(0);
    visibility = 'hidden';
    await tick(POLL_INTERVAL_MS * 4);
    expect(urls).toHaveLength(1);
    visibility = 'visible';
    await act(async () => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await tick(0);
    expect(urls).toHaveLength(2);
  });

  it('skips a poll when the agent-wallets budget is nearly spent, leaving it to the person', async () => {
    remaining = 3;
    renderBadge();
    await tick(0);
    await tick(POLL_INTERVAL_MS * 2);
    expect(urls).toHaveLength(1);
  });
});
