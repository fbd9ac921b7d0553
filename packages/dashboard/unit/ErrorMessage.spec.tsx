// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/errors.ts';
import { ErrorMessage } from '../src/components/ErrorMessage.tsx';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('ErrorMessage', () => {
  it('shows words, never the envelope', () => {
    render(
      <ErrorMessage
        error={new ApiError('INSUFFICIENT_BALANCE', 422, 'available 1.000000, needed 5.000000')}
      />,
    );
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('Not enough available balance. Available 1.000000, needed 5.000000.');
    expect(alert.textContent).not.toContain('{');
  });

  it('lists the violated policies of a denial', () => {
    const error = new ApiError('POLICY_DENIED', 422, 'payment denied', {
      violations: [{ policyId: 'p', policyType: 'spend_cap_per_tx', reason: 'above the cap of 10.000000' }],
    });
    render(<ErrorMessage error={error} />);
    expect(screen.getByText('above the cap of 10.000000')).toBeTruthy();
  });

  it('writes a denial from the violations’ fields, in the dashboard’s words', () => {
    const error = new ApiError('POLICY_DENIED', 422, 'payment denied by 2 policies: …', {
      violations: [
        {
          policyId: 'p1',
          policyType: 'tx_count_cap',
          reason: 'would be payment 4 in 1h, above the limit of 3',
          limit: 3,
          attempted: 4,
          window: '1h',
        },
        {
          policyId: 'p2',
          policyType: 'address_blocklist',
          reason: 'x',
          limit: null,
          attempted: `0x${'ab'.repeat(20)}`,
        },
      ],
    });
    render(<ErrorMessage error={error} />);
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('p')?.textContent).toBe('Denied by 2 policies:');
    expect([...alert.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'Would be payment 4 in 1 hour; the limit is 3',
      'Recipient 0xababab…ababab is blocked',
    ]);
  });

  it('counts a 429 down to "try again now"', async () => {
    vi.useFakeTimers();
    render(<ErrorMessage error={new ApiError('RATE_LIMITED', 429, 'slow down', { retryAfter: 3 })} />);
    expect(screen.getByRole('alert').textContent).toBe('Too many requests — try again in 3 s');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1000);
    });
    expect(screen.getByRole('alert').textContent).toBe('Too many requests — try again in 2 s');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2500);
    });
    expect(screen.getByRole('alert').textContent).toBe('You can try again now.');
  });
});
