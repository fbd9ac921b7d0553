// @vitest-environment jsdom
// A paid request in the transactions table and its audit trail: how it paid its seller ("x402 exact", "MPP
// charge") and the seller's receipt, shortened, whole on demand and copyable; other transactions show neither.

import type { AgentWallet, Transaction, TransactionWithEvents } from '@agent-wallet/sdk';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TransactionsTable } from '../src/views/TransactionsTable.tsx';
import { pathOf, testServices } from './support/services.tsx';

const WALLET = { id: 'wal_1', label: 'Bot' } as AgentWallet;
const RECEIPT = `eyJzdWNjZXNzIjp0cnVlLCJ0cmFuc2FjdGlvbiI6${'QUJD'.repeat(60)}fQ==`;

function tx(fields: Partial<Transaction>): Transaction {
  return {
    id: 'tx_1',
    walletId: 'wal_1',
    type: 'payment',
    status: 'completed',
    amount: '0.010000',
    currency: 'USDC',
    toAddress: `0x${'ab'.repeat(20)}`,
    memo: null,
    reason: null,
    rail: 'sandbox',
    txHash: null,
    rejectionReason: null,
    violations: null,
    initiatedBy: 'key:key_1',
    expiresAt: null,
    resource: null,
    approvalsRequired: null,
    approvals: [],
    createdAt: '2026-05-12T10:00:00.000Z',
    updatedAt: '2026-05-12T10:00:00.000Z',
    ...fields,
  };
}

const X402 = tx({
  id: 'tx_x402',
  type: 'x402',
  resource: 'https://api.example.com/v1/report',
  protocol: 'x402',
  scheme: 'exact',
  authorizedAmount: '0.010000',
  receipt: RECEIPT,
});
const MPP = tx({
  id: 'tx_mpp',
  type: 'x402',
  resource: 'https://mpp.example.com/search',
  protocol: 'mpp',
  scheme: 'charge',
  authorizedAmount: '0.010000',
  receipt: null,
});
const PAYMENT = tx({ id: 'tx_pay' });

let details: Record<string, TransactionWithEvents>;

function renderTable(rows: Transaction[]) {
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    const path = pathOf(input);
    const id = path.split('/').at(-1) ?? '';
    const found = path.includes('/transactions/') ? details[id] : undefined;
    const body =
      found !== undefined
        ? { success: true, data: found }
        : path.endsWith('/keys')
          ? { success: true, data: { items: [], total: 0, page: 1, limit: 100 } }
          : { success: false, error: { code: 'NOT_FOUND', message: 'no' } };
    return new Response(JSON.stringify(body), { status: 'success' in body && body.success ? 200 : 404 });
  });
  const activity = {
    transactions: rows,
    total: rows.length,
    loading: false,
    error: undefined,
    hasOlder: false,
    loadOlder: () => undefined,
    reload: () => undefined,
  };
  const { wrap } = testServices(fetch);
  render(wrap(<TransactionsTable wallet={WALLET} activity={activity} />));
}

async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

beforeEach(() => {
  details = {};
});

afterEach(cleanup);

describe('paid requests in the transactions table', () => {
  it('says how each paid request paid, and nothing of the kind for other transactions', () => {
    renderTable([X402, MPP, PAYMENT]);
    const [first, second, third] = screen.getAllByTestId('tx-item');
    expect(within(first!).getByTestId('tx-method').textContent).toBe('Paid with x402 exact');
    expect(within(first!).getByText('api.example.com/v1/report')).toBeTruthy();
    expect(within(second!).getByTestId('tx-method').textContent).toBe('Paid with MPP charge');
    expect(within(third!).queryByTestId('tx-method')).toBeNull();
    expect(within(second!).getByText('mpp.example.com/search')).toBeTruthy();
  });

  it('shows the seller’s receipt shortened and collapsed, whole on demand, with a copy button', () => {
    renderTable([X402, MPP, PAYMENT]);
    const [first, second, third] = screen.getAllByTestId('tx-item');
    const receipt = within(first!).getByTestId('tx-receipt');
    expect(receipt.querySelector('summary code')?.textContent).toBe('eyJzdWNjZXNzIjp0…QUJDfQ==');
    expect(first!.textContent).toContain('Seller’s receipt');
    expect(receipt.querySelector('summary code')?.getAttribute('title')).toBe(RECEIPT);
    const folded = receipt.querySelector('details');
    expect(folded?.open).toBe(false);
    expect(within(receipt).getByTestId('tx-receipt-full').textContent).toBe(RECEIPT);
    expect(within(receipt).getByRole('button', { name: 'Copy the seller’s receipt' })).toBeTruthy();
    // No receipt came (null), or not a paid request: no receipt line.
    expect(within(second!).queryByTestId('tx-receipt')).toBeNull();
    expect(within(third!).queryByTestId('tx-receipt')).toBeNull();
  });

  it('copies the whole receipt', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderTable([X402]);
    fireEvent.click(screen.getByRole('button', { name: 'Copy the seller’s receipt' }));
    await settle();
    expect(writeText).toHaveBeenCalledWith(RECEIPT);
    expect(screen.getByText('Copied to the clipboard.')).toBeTruthy();
  });

  it('shows how it paid, what the authorization allowed and the receipt in the audit trail', async () => {
    details = {
      tx_x402: {
        ...X402,
        scheme: 'upto',
        authorizedAmount: '0.500000',
        events: [{ status: 'completed', actor: 'key:key_1', note: null, at: '2026-05-12T10:00:00.000Z' }],
      },
    };
    renderTable([X402]);
    fireEvent.click(screen.getByRole('button', { name: 'Audit trail' }));
    const trail = await screen.findByTestId('audit-trail');
    expect(within(trail).getByTestId('audit-method').textContent).toBe('x402 upto');
    expect(trail.textContent).toContain('Authorized up to0.50 USDC');
    expect(within(trail).getByTestId('tx-receipt-full').textContent).toBe(RECEIPT);
    // The receipt line under the row gives way to the audit trail's.
    expect(screen.getAllByTestId('tx-receipt')).toHaveLength(1);
  });

  it('does not say what the authorization allowed when it is the amount paid', async () => {
    details = {
      tx_mpp: {
        ...MPP,
        events: [{ status: 'completed', actor: 'key:key_1', note: null, at: '2026-05-12T10:00:00.000Z' }],
      },
    };
    renderTable([MPP]);
    fireEvent.click(screen.getByRole('button', { name: 'Audit trail' }));
    const trail = await screen.findByTestId('audit-trail');
    expect(within(trail).getByTestId('audit-method').textContent).toBe('MPP charge');
    expect(trail.textContent).not.toContain('Authorized up to');
    expect(within(trail).queryByTestId('tx-receipt')).toBeNull();
  });
});
