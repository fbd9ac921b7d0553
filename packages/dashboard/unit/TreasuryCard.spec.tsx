// @vitest-environment jsdom
// The overview's Treasury card: on the evm rail only, the hot treasury in words (the service's key holds all of it,
// all of it at risk), a calm note while the chain cannot be read (503) and asked again until it can, nothing from
// a server without the view; on the sandbox rail the card is not there and the view is never asked for.

import type { TreasuryView } from '@agent-wallet/sdk';
import { act, cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChainInfo } from '../src/app-context.ts';
import { OverviewView } from '../src/views/OverviewView.tsx';
import { TREASURY_RETRY_MS, TreasuryCard } from '../src/views/TreasuryCard.tsx';
import {
  atRiskWords,
  BOUNDED_NOTE,
  TREASURY_UNAVAILABLE,
  treasuryModeWords,
} from '../src/views/treasuryWords.ts';
import { pathOf, testServices } from './support/services.tsx';

const TREASURY_KEY = `0x1234${'5'.repeat(32)}abcd`;
const HOT: TreasuryView = {
  mode: 'hot',
  account: TREASURY_KEY,
  owners: [],
  threshold: null,
  allowance: null,
  float: '1250.500000',
  atRisk: '1250.500000',
};
const EVM: ChainInfo = { explorerUrl: null, confirmations: 3 };

interface Reply {
  status: number;
  body: unknown;
}
const ok = (data: unknown): Reply => ({ status: 200, body: { success: true, data } });
const failure = (status: number, code: string, message = ''): Reply => ({
  status,
  body: { success: false, error: { code, message } },
});

const MASTER = {
  id: 'wal_m',
  address: `0x${'a'.repeat(40)}`,
  balance: '1250.500000',
  currency: 'USDC',
  createdAt: '2026-01-01T00:00:00Z',
};
let treasury: Reply;
const requested: string[] = [];

function services(chain: ChainInfo | null) {
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    const path = pathOf(input);
    requested.push(path);
    const reply =
      path === '/api/v1/wallet/treasury'
        ? treasury
        : path === '/api/v1/wallet'
          ? ok(MASTER)
          : path === '/api/v1/agent-wallets'
            ? ok({ items: [], total: 0, page: 1, limit: 100, pendingApprovals: 0 })
            : path === '/api/v1/wallet/deposits/pending' || path === '/api/v1/wallet/withdrawals'
              ? ok({ items: [], total: 0, page: 1, limit: 20 })
              : failure(404, 'NOT_FOUND', 'no such route');
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  });
  return testServices(fetch, { sandbox: chain === null, chain });
}

function renderWith(node: ReactNode, chain: ChainInfo | null = EVM) {
  const value = services(chain);
  render(value.wrap(node));
  return value;
}

/** Advances the clock, then lets the answers it brought (fetch, the SDK's retries, React) settle. */
async function tick(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
    for (let i = 0; i < 5; i += 1) await vi.advanceTimersByTimeAsync(1);
  });
}

const treasuryRequests = () => requested.filter((path) => path === '/api/v1/wallet/treasury').length;

beforeEach(() => {
  treasury = ok(HOT);
  requested.length = 0;
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
  vi.useFakeTimers();
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('the overview’s Treasury card', () => {
  it('on the evm rail: hot, the float in the service’s key, all of it at risk, how to bound it', async () => {
    renderWith(<OverviewView />);
    await tick(0);
    const card = screen.getByTestId('overview-treasury');
    expect(card.querySelector('h2')?.textContent).toBe('Treasury');
    expect(screen.getByTestId('treasury-mode').textContent).toBe("Hot: the service's key holds all of it.");
    expect(screen.getByTestId('treasury-float').textContent).toBe('Float: 1,250.50 USDC in 0x123455…55abcd');
    expect(screen.getByTestId('treasury-float').querySelector('code')?.getAttribute('title')).toBe(
      TREASURY_KEY,
    );
    expect(screen.getByTestId('treasury-at-risk').textContent).toBe(
      'At risk if the server is breached: 1,250.50 USDC',
    );
    expect(screen.getByTestId('treasury-bounded-note').textContent).toBe(BOUNDED_NOTE);
    expect(treasuryRequests()).toBe(1);
  });

  it('on the sandbox rail: no card, and the treasury is never asked for', async () => {
    renderWith(<OverviewView />, null);
    await tick(0);
    expect(screen.getByTestId('overview-summary').textContent).toContain('1,250.50 USDC');
    expect(screen.queryByTestId('overview-treasury')).toBeNull();
    expect(treasuryRequests()).toBe(0);
  });

  it('while the chain cannot be read (503): a calm note, no figures, asked again until the chain answers', async () => {
    treasury = failure(503, 'SERVICE_UNAVAILABLE', 'the chain cannot be read; retry shortly');
    renderWith(<TreasuryCard />);
    // The SDK's own retries of a read (under a second each) come first.
    await tick(3_000);
    expect(screen.getByTestId('treasury-unavailable').textContent).toBe(TREASURY_UNAVAILABLE);
    expect(screen.queryByTestId('treasury-at-risk')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(screen.getByTestId('overview-treasury').textContent).not.toMatch(/went wrong|HTTP 503/);
    const asked = treasuryRequests();

    treasury = ok(HOT);
    await tick(TREASURY_RETRY_MS);
    expect(treasuryRequests()).toBe(asked + 1);
    expect(screen.queryByTestId('treasury-unavailable')).toBeNull();
    expect(screen.getByTestId('treasury-at-risk').textContent).toContain('1,250.50 USDC');

    // Once it answers, it is not polled any more.
    await tick(TREASURY_RETRY_MS * 3);
    expect(treasuryRequests()).toBe(asked + 1);
  });

  it('a server without the view (404) shows no card', async () => {
    treasury = failure(404, 'NOT_FOUND', 'the treasury view exists on the evm rail only');
    renderWith(<TreasuryCard />);
    await tick(0);
    expect(screen.queryByTestId('overview-treasury')).toBeNull();
  });

  it('any other failure is a load error with a way to try again', async () => {
    treasury = failure(500, 'INTERNAL_ERROR');
    renderWith(<TreasuryCard />);
    await tick(3_000);
    expect(screen.getByTestId('overview-treasury').textContent).toContain(
      'Something went wrong on the server. Please try again.',
    );
    treasury = ok(HOT);
    await act(async () => {
      screen.getByRole('button', { name: 'Try again' }).click();
    });
    await tick(0);
    expect(screen.getByTestId('treasury-mode').textContent).toBe("Hot: the service's key holds all of it.");
  });
});

describe('the treasury in words', () => {
  it('hot: the service’s key holds all of it', () => {
    expect(treasuryModeWords(HOT)).toBe("Hot: the service's key holds all of it");
  });

  it('bounded: the owners’ smart account, their threshold and the service’s allowance per period', () => {
    expect(
      treasuryModeWords({
        mode: 'bounded',
        owners: [`0x${'b'.repeat(40)}`, `0x${'c'.repeat(40)}`, `0x${'d'.repeat(40)}`],
        threshold: 2,
        allowance: {
          perPeriod: '500.000000',
          period: 'day',
          remaining: '120.000000',
          resetsAt: '2026-01-02T00:00:00Z',
        },
      }),
    ).toBe(
      'Bounded: a smart account the owners hold keeps it (2 of 3 owners sign a change); the service may move 500.00 USDC per day',
    );
    expect(treasuryModeWords({ mode: 'bounded', owners: [], threshold: null, allowance: null })).toBe(
      'Bounded: a smart account the owners hold keeps it',
    );
  });

  it('at risk: every digit the server sent, in USDC', () => {
    expect(atRiskWords('1250.500000')).toBe('At risk if the server is breached: 1,250.50 USDC');
    expect(atRiskWords('0.000001')).toBe('At risk if the server is breached: 0.000001 USDC');
    expect(atRiskWords('0.000000')).toBe('At risk if the server is breached: 0.00 USDC');
  });
});
