// @vitest-environment jsdom

import type { AgentWallet } from '@agent-wallet/sdk';
import { focusManager } from '@tanstack/react-query';
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { POLL_INTERVAL_MS, pendingTotal, useAgentWallets } from '../src/queries.ts';
import { testServices } from './support/services.tsx';

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
  const wallets = useAgentWallets(true);
  return <span data-testid="badge">{pendingTotal(wallets.data)}</span>;
}

function renderBadge() {
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    urls.push(new URL(String(input)).pathname + new URL(String(input)).search);
    const body = {
      success: true,
      data: { items: [wallet('a', pending), wallet('b', 1)], total: 2, page: 1, limit: 100 },
    };
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'ratelimit-limit': '30', 'ratelimit-remaining': String(remaining), 'ratelimit-reset': '60' },
    });
  });
  const { wrap } = testServices(fetch);
  render(wrap(<Badge />));
}

/** Advances the clock, then lets the answers it brought (fetch, the SDK, React) settle. */
async function tick(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
    for (let i = 0; i < 5; i += 1) await vi.advanceTimersByTimeAsync(1);
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  visibility = 'visible';
  pending = 0;
  remaining = 30;
  urls.length = 0;
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
  focusManager.setFocused(undefined);
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
    await act(async () => {
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    });
    await tick(POLL_INTERVAL_MS * 4);
    expect(urls).toHaveLength(1);
    visibility = 'visible';
    await act(async () => {
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
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
