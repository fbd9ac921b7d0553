// @vitest-environment jsdom

import type { PendingDeposit } from '@agent-wallet/sdk';
import { act, cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChainInfo } from '../src/app-context.ts';
import { DEPOSIT_POLL_INTERVAL_MS, K, useMasterWallet } from '../src/queries.ts';
import { confirmationsText, PendingDepositRow, PendingDeposits } from '../src/views/PendingDeposits.tsx';
import { pathOf, testServices } from './support/services.tsx';

const HASH = `0x1234${'5'.repeat(56)}abcd`;
const MASTER = `0x${'a'.repeat(40)}`;

function deposit(confirmations: number, overrides: Partial<PendingDeposit> = {}): PendingDeposit {
  return {
    txHash: HASH,
    logIndex: 0,
    walletId: 'wal_m',
    address: MASTER,
    amount: '25.000000',
    currency: 'USDC',
    blockNumber: '7',
    confirmations,
    confirmationsRequired: 3,
    seenAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

let pending: PendingDeposit[] = [];
let balance = '0.000000';
const requested: string[] = [];

function services(chain: ChainInfo | null) {
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    const path = pathOf(input);
    requested.push(path);
    const data =
      path === '/api/v1/wallet/deposits/pending'
        ? { items: pending, total: pending.length, page: 1, limit: 20 }
        : { id: 'wal_m', address: MASTER, balance, currency: 'USDC', createdAt: '2026-01-01T00:00:00Z' };
    return new Response(JSON.stringify({ success: true, data }), { status: 200 });
  });
  return testServices(fetch, { sandbox: false, chain });
}

function renderWith(node: ReactNode, chain: ChainInfo | null = { explorerUrl: null, confirmations: 3 }) {
  const value = services(chain);
  render(value.wrap(node));
  return value;
}

/** Advances the clock, then lets the answers it brought (fetch, the SDK, React) settle. */
async function tick(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
    for (let i = 0; i < 5; i += 1) await vi.advanceTimersByTimeAsync(1);
  });
}

function Balance() {
  const master = useMasterWallet();
  return <span data-testid="balance">{master.data?.balance ?? ''}</span>;
}

beforeEach(() => {
  pending = [];
  balance = '0.000000';
  requested.length = 0;
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('PendingDepositRow', () => {
  it('shows the amount, the shortened hash and "1 of 3 confirmations"', () => {
    renderWith(
      <ul>
        <PendingDepositRow deposit={deposit(1)} />
      </ul>,
    );
    const row = screen.getByTestId('pending-deposit');
    expect(row.textContent).toContain('+25.00 USDC');
    expect(row.textContent).toContain('0x1234…abcd');
    expect(row.textContent).not.toContain(HASH);
    expect(screen.getByTestId('pending-confirmations').textContent).toBe('1 of 3 confirmations');
    const bar = row.querySelector('progress');
    expect(bar?.getAttribute('value')).toBe('1');
    expect(bar?.getAttribute('max')).toBe('3');
    // Without an explorer: plain text, the full hash in the title.
    expect(screen.queryByTestId('tx-hash-link')).toBeNull();
    expect(screen.getByTestId('tx-hash').getAttribute('title')).toBe(HASH);
  });

  it('links the hash to the explorer in a new tab when there is one', () => {
    renderWith(
      <ul>
        <PendingDepositRow deposit={deposit(2)} />
      </ul>,
      { explorerUrl: 'https://explorer.example', confirmations: 3 },
    );
    const link = screen.getByRole('link', { name: new RegExp(HASH) });
    expect(link.getAttribute('href')).toBe(`https://explorer.example/tx/${HASH}`);
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link.getAttribute('title')).toBe(HASH);
    expect(link.textContent).toBe('0x1234…abcd');
    expect(screen.getByTestId('pending-confirmations').textContent).toBe('2 of 3 confirmations');
  });

  it('counts confirmations in words, never past the required depth', () => {
    expect(confirmationsText(1, 3)).toBe('1 of 3 confirmations');
    expect(confirmationsText(5, 3)).toBe('3 of 3 confirmations');
    expect(confirmationsText(0, 1)).toBe('0 of 1 confirmation');
  });
});

describe('PendingDeposits', () => {
  it('says when nothing is on its way', async () => {
    vi.useFakeTimers();
    renderWith(<PendingDeposits />);
    await tick(0);
    expect(screen.getByTestId('no-pending-deposits').textContent).toBe('No deposits on their way.');
  });

  it('polls every 5 s while shown, and reloads the balance once a deposit is credited', async () => {
    vi.useFakeTimers();
    pending = [deposit(1)];
    const { queryClient } = renderWith(
      <>
        <Balance />
        <PendingDeposits />
      </>,
    );
    await tick(0);
    expect(screen.getByTestId('pending-confirmations').textContent).toBe('1 of 3 confirmations');
    expect(screen.getByTestId('balance').textContent).toBe('0.000000');
    expect(requested.filter((p) => p.endsWith('/pending'))).toHaveLength(1);

    pending = [deposit(2)];
    await tick(DEPOSIT_POLL_INTERVAL_MS);
    expect(screen.getByTestId('pending-confirmations').textContent).toBe('2 of 3 confirmations');
    expect(requested.filter((p) => p === '/api/v1/wallet')).toHaveLength(1);

    pending = [];
    balance = '25.000000';
    await tick(DEPOSIT_POLL_INTERVAL_MS);
    expect(screen.getByTestId('no-pending-deposits')).toBeTruthy();
    expect(screen.getByTestId('balance').textContent).toBe('25.000000');
    expect(queryClient.getQueryState(K.master)?.dataUpdatedAt).toBeGreaterThan(0);
    expect(requested.filter((p) => p.endsWith('/pending'))).toHaveLength(3);
  });

  it('stops polling when it leaves the screen', async () => {
    vi.useFakeTimers();
    renderWith(<PendingDeposits />);
    await tick(0);
    cleanup();
    await tick(DEPOSIT_POLL_INTERVAL_MS * 3);
    expect(requested.filter((p) => p.endsWith('/pending'))).toHaveLength(1);
  });
});
