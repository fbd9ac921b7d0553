// @vitest-environment jsdom

import type {
  AgentWallet,
  CheckPaymentResult as PaymentCheck,
  Policy,
  PolicyChange,
} from '@agent-wallet/sdk';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PoliciesPanel } from '../src/views/policies/PoliciesPanel.tsx';
import { pathOf, testServices } from './support/services.tsx';

const TO = '0xabcdef0123456789abcdef0123456789abcdef12';
const BASE = '/api/v1/agent-wallets/wal_1/policies';

type Reply = { status: number; body: unknown };
const ok = (data: unknown, status = 200): Reply => ({ status, body: { success: true, data } });

const WALLET: AgentWallet = {
  id: 'wal_1',
  label: 'Bot',
  address: `0x${'c'.repeat(40)}`,
  balance: '200.000000',
  heldBalance: '0.000000',
  currency: 'USDC',
  frozen: false,
  dailyCapRemaining: null,
  totalCapRemaining: null,
  pendingApprovals: 0,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

function policy(type: Policy['type'], params: Record<string, unknown>, id = 'pol_1'): Policy {
  return {
    id,
    walletId: 'wal_1',
    type,
    params,
    active: true,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  } as unknown as Policy;
}

const CAP = policy('spend_cap_window', { limit: '100.000000', window: '24h' });
const CHANGE: PolicyChange = {
  id: 'pch_1',
  policyId: 'pol_1',
  action: 'created',
  actor: 'user:usr_1',
  before: null,
  after: CAP,
  createdAt: '2026-01-02T10:00:00Z',
};

let routes: Record<string, Reply | ((body: unknown) => Reply)>;
const sent: { method: string; path: string; body: unknown }[] = [];

function renderPanel() {
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = pathOf(input);
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    sent.push({ method, path, body });
    const route = routes[`${method} ${path}`];
    const reply =
      route === undefined
        ? { status: 404, body: { success: false, error: { code: 'NOT_FOUND', message: 'no' } } }
        : typeof route === 'function'
          ? route(body)
          : route;
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  });
  const { wrap } = testServices(fetch);
  render(wrap(<PoliciesPanel wallet={WALLET} />));
}

async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

const creates = () => sent.filter((r) => r.method === 'POST' && r.path === BASE);

beforeEach(() => {
  sent.length = 0;
  routes = {
    [`GET ${BASE}`]: ok({ items: [CAP], total: 1, page: 1, limit: 100 }),
    [`GET ${BASE}/changes`]: ok({ items: [CHANGE], total: 1, page: 1, limit: 10 }),
  };
});

afterEach(cleanup);

describe('policies panel', () => {
  it('shows each policy and the history in words', async () => {
    renderPanel();
    const item = await screen.findByTestId('policy-item');
    expect(within(item).getByTestId('policy-summary').textContent).toBe('At most 100.00 USDC per 24 hours');
    const change = await screen.findByTestId('policy-change');
    expect(change.textContent).toContain('Added');
    expect(change.textContent).toContain('Spending cap per period: At most 100.00 USDC per 24 hours');
    expect(change.textContent).toContain('you');
  });

  it('checks a time window before sending, then sends it and records the change', async () => {
    const added = policy(
      'time_window',
      { days: ['mon', 'sat'], start: '09:00', end: '17:00', timezone: 'Europe/Berlin' },
      'pol_2',
    );
    routes[`POST ${BASE}`] = ok(added, 201);
    renderPanel();
    await screen.findByTestId('policy-item');
    const form = screen.getByRole('form', { name: 'Add a policy' });
    fireEvent.change(within(form).getByLabelText('Policy type'), { target: { value: 'time_window' } });
    for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday']) {
      fireEvent.click(within(form).getByLabelText(day));
    }
    fireEvent.change(within(form).getByLabelText('From (HH:MM)'), { target: { value: '25:00' } });
    fireEvent.change(within(form).getByLabelText('Timezone'), { target: { value: 'Mars/Olympus_Mons' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add policy' }));
    expect(within(form).getByText('Choose at least one day.')).toBeTruthy();
    expect(within(form).getByText('Hours go from 00 to 23 (24-hour clock).')).toBeTruthy();
    expect(within(form).getByText(/Not a timezone this browser knows/)).toBeTruthy();
    expect(within(form).getByLabelText('From (HH:MM)').getAttribute('aria-invalid')).toBe('true');
    await settle();
    expect(creates()).toHaveLength(0);

    fireEvent.click(within(form).getByLabelText('Saturday'));
    fireEvent.click(within(form).getByLabelText('Monday'));
    fireEvent.change(within(form).getByLabelText('From (HH:MM)'), { target: { value: '9:00' } });
    fireEvent.change(within(form).getByLabelText('Timezone'), { target: { value: 'Europe/Berlin' } });
    const changesBefore = sent.filter((r) => r.path === `${BASE}/changes`).length;
    fireEvent.click(within(form).getByRole('button', { name: 'Add policy' }));
    await settle();
    expect(creates().map((r) => r.body)).toEqual([
      {
        type: 'time_window',
        params: { days: ['mon', 'sat'], start: '09:00', end: '17:00', timezone: 'Europe/Berlin' },
      },
    ]);
    expect(screen.getByText('Mon, Sat 09:00–17:00 (Europe/Berlin)')).toBeTruthy();
    expect(screen.getByText('Added: Allowed hours.')).toBeTruthy();
    // The history on screen loads again to show the new entry.
    expect(sent.filter((r) => r.path === `${BASE}/changes`).length).toBe(changesBefore + 1);
  });

  it('checks a payment count and a window cap before sending', async () => {
    renderPanel();
    await screen.findByTestId('policy-item');
    const form = screen.getByRole('form', { name: 'Add a policy' });
    const type = within(form).getByLabelText('Policy type');
    fireEvent.change(type, { target: { value: 'tx_count_cap' } });
    fireEvent.change(within(form).getByLabelText('Number of payments'), { target: { value: '2.5' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add policy' }));
    expect(within(form).getByText('Use a whole number in plain digits, e.g. 3.')).toBeTruthy();
    fireEvent.change(type, { target: { value: 'recipient_cap' } });
    fireEvent.change(within(form).getByLabelText('Limit per recipient'), { target: { value: '1,000' } });
    fireEvent.change(within(form).getByLabelText('Period'), { target: { value: '7d' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add policy' }));
    expect(within(form).getByText(/Use a dot for decimals/)).toBeTruthy();
    await settle();
    expect(creates()).toHaveLength(0);
  });

  it('checks each seller host inline before sending a merchant list, then lists its hosts', async () => {
    const added = policy('merchant_allowlist', { hosts: ['api.example.com', '*.example.org'] }, 'pol_3');
    routes[`POST ${BASE}`] = ok(added, 201);
    renderPanel();
    await screen.findByTestId('policy-item');
    const form = screen.getByRole('form', { name: 'Add a policy' });
    const type = within(form).getByLabelText('Policy type');
    fireEvent.change(type, { target: { value: 'merchant_blocklist' } });
    expect(within(form).getByLabelText('Blocked sellers (one host a line)')).toBeTruthy();
    fireEvent.change(type, { target: { value: 'merchant_allowlist' } });
    expect(
      within(form).getByText(
        /^Deny paid API requests \(x402 and MPP\) to any seller whose host is not on this list/,
      ),
    ).toBeTruthy();
    const hosts = within(form).getByLabelText('Allowed sellers (one host a line)');
    // The hint says what *. covers and what the list judges, and is tied to the field.
    const hint = document.getElementById(hosts.getAttribute('aria-describedby') ?? '');
    expect(hint?.textContent).toContain('*.example.com covers every subdomain of example.com');
    expect(hint?.textContent).toContain('judge paid requests (x402 and MPP) only');

    fireEvent.change(hosts, {
      target: { value: 'api.example.com\nhttps://shop.example.com/buy\n*.Example.org' },
    });
    fireEvent.click(within(form).getByRole('button', { name: 'Add policy' }));
    expect(hosts.getAttribute('aria-invalid')).toBe('true');
    const error = within(form).getByText(
      /^Host 2 \(https:\/\/shop\.example\.com\/buy\): Write the host only/,
    );
    expect(hosts.getAttribute('aria-describedby')).toContain(error.closest('ul')?.id ?? 'missing');
    await settle();
    expect(creates()).toHaveLength(0);

    fireEvent.change(hosts, { target: { value: 'api.example.com\n*.Example.org' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add policy' }));
    await settle();
    expect(creates().map((r) => r.body)).toEqual([
      { type: 'merchant_allowlist', params: { hosts: ['api.example.com', '*.example.org'] } },
    ]);
    expect(screen.getByText('Added: Allowed sellers.')).toBeTruthy();
    const item = screen.getAllByTestId('policy-item').find((li) => li.dataset.type === 'merchant_allowlist');
    expect(within(item!).getByTestId('policy-summary').textContent).toBe(
      'Paid requests only to 2 allowed sellers',
    );
    expect(within(item!).getByTestId('host-list').textContent).toBe('api.example.com*.example.org');
  });

  it('tries a payment and says why it would be denied, in its own words', async () => {
    const answer: PaymentCheck = {
      allowed: false,
      requiresApproval: false,
      violations: [
        {
          policyId: 'pol_1',
          policyType: 'spend_cap_window',
          reason: 'would pass the 24h spending cap (150.000000, limit 100.000000)',
          limit: '100.000000',
          attempted: '150.000000',
          window: '24h',
        },
      ],
      balanceAfter: '200.000000',
      dailyCapRemaining: null,
      totalCapRemaining: null,
      refusal: null,
    };
    routes[`POST ${BASE}/simulate`] = ok(answer);
    renderPanel();
    await screen.findByTestId('policy-item');
    const form = screen.getByRole('form', { name: 'Try a payment' });
    fireEvent.change(within(form).getByLabelText('Recipient address'), { target: { value: '0x1234' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Check payment' }));
    expect(within(form).getByText(/40 hex digits/)).toBeTruthy();
    expect(sent.some((r) => r.path.endsWith('/simulate'))).toBe(false);

    fireEvent.change(within(form).getByLabelText('Recipient address'), { target: { value: TO } });
    fireEvent.change(within(form).getByLabelText('Amount'), { target: { value: '150' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Check payment' }));
    const result = await screen.findByTestId('simulation-result');
    expect(sent.find((r) => r.path.endsWith('/simulate'))?.body).toEqual({ toAddress: TO, amount: '150' });
    expect(result.dataset.outcome).toBe('denied');
    expect(result.textContent).toContain('Denied by a policy: the payment would be refused.');
    expect(within(result).getByTestId('simulation-violations').textContent).toBe(
      'Spending cap per period: Over the 100.00 USDC 24-hour budget (would reach 150.00)',
    );
    expect(result.textContent).not.toContain('150.000000');
    expect(within(result).getByTestId('simulation-balance').textContent).toBe('200.00 USDC');
    expect(result.textContent).toContain('Available balance stays');

    routes[`POST ${BASE}/simulate`] = ok({
      ...answer,
      allowed: true,
      requiresApproval: true,
      violations: [],
      balanceAfter: '150.000000',
    });
    fireEvent.change(within(form).getByLabelText('Amount'), { target: { value: '50' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Check payment' }));
    await settle();
    const second = screen.getByTestId('simulation-result');
    expect(second.dataset.outcome).toBe('approval');
    expect(second.textContent).toContain('Needs your approval');
    expect(second.textContent).toContain('Available balance after150.00 USDC');
  });
});
