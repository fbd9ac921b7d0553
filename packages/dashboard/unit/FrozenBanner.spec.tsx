// @vitest-environment jsdom
// Where the caps are: a frozen wallet's banner (the unfreeze action by role) and a calendar budget's reset.
import type { AgentWallet } from '@agent-wallet/sdk';
import { cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../src/roles.ts';
import { FrozenBanner } from '../src/views/ActivityPanel.tsx';
import { CapBars } from '../src/views/CapBars.tsx';
import { testServices } from './support/services.tsx';

afterEach(cleanup);

const wallet = { id: 'wal_a', label: 'Scout', frozen: true } as AgentWallet;

function renderAs(role: Role, node: ReactNode) {
  const services = testServices(vi.fn(), { role });
  render(services.wrap(node));
}

describe('where the caps are', () => {
  it('a frozen wallet says payments are refused, with the unfreeze action for an admin', () => {
    renderAs('admin', <FrozenBanner wallet={wallet} />);
    expect(screen.getByTestId('frozen-banner').textContent).toContain(
      'Frozen — payments are refused until you unfreeze it.',
    );
    expect(screen.getByRole('button', { name: 'Unfreeze wallet' })).toBeTruthy();
  });

  it('a viewer sees the banner without the action', () => {
    renderAs('viewer', <FrozenBanner wallet={wallet} />);
    expect(screen.getByTestId('frozen-banner').textContent).toContain(
      'An admin or an owner can unfreeze it.',
    );
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('a calendar budget says when it resets; a breaker is listed in words', () => {
    const bar = {
      policyId: 'pol_p',
      title: 'Monthly budget (Europe/Berlin)',
      used: 6_000_000n,
      limit: 100_000_000n,
      unit: 'usdc' as const,
      status: 'known' as const,
      resets: { period: 'month' as const, atMs: Date.parse('2026-12-01T12:00:00Z') },
    };
    const note = { policyId: 'pol_f', title: 'Breaker', text: 'Freezes after 3 denied payments in 1 hour' };
    renderAs('viewer', <CapBars bars={[bar]} notes={[note]} loading={false} />);
    expect(screen.getByTestId('cap-resets').textContent).toMatch(/— resets on .*1/);
    expect(screen.getByTestId('cap-note').textContent).toContain('Freezes after 3 denied payments in 1 hour');
  });
});
