// @vitest-environment jsdom
// The page of the operator's reset link: the token leaves the address bar at once, the password is checked
// before sending, and an unknown or used link says to ask for a new one.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../src/api/client.ts';
import { ResetPasswordScreen, resetTokenOf } from '../src/views/ResetPasswordScreen.tsx';

const TOKEN = `pwr_${'a1B2'.repeat(10)}`;
const sent: Array<{ path: string; body: unknown }> = [];
let answer: { status: number; body: unknown };

beforeEach(() => {
  sent.length = 0;
  answer = { status: 200, body: { success: true, data: { passwordReset: true, endedSessions: 1 } } };
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      sent.push({
        path: new URL(String(input), location.href).pathname,
        body: JSON.parse(String(init?.body)),
      });
      return new Response(JSON.stringify(answer.body), { status: answer.status });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  history.replaceState(null, '', '/');
});

function mount(hash: string) {
  history.replaceState(null, '', `/reset-password${hash}`);
  render(<ResetPasswordScreen client={new ApiClient({ onUnauthorized: () => {} })} />);
}

describe('the reset password page', () => {
  it('reads only a well-formed token from the fragment', () => {
    expect(resetTokenOf(`#${TOKEN}`)).toBe(TOKEN);
    expect(resetTokenOf(TOKEN)).toBe(TOKEN);
    expect(resetTokenOf('#pwr_short')).toBeNull();
    expect(resetTokenOf('')).toBeNull();
  });

  it('takes the token out of the address bar, checks the password, sends it, and says what happened', async () => {
    mount(`#${TOKEN}`);
    expect(location.hash).toBe('');
    expect(location.pathname).toBe('/reset-password');
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set the password' }));
    expect(sent).toHaveLength(0);
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'a brand new passphrase' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set the password' }));
    await screen.findByTestId('reset-done');
    expect(sent).toEqual([
      { path: '/api/v1/auth/password/reset', body: { token: TOKEN, newPassword: 'a brand new passphrase' } },
    ]);
  });

  it('shows the strength as it is typed and does not send a password the server would refuse as weak', async () => {
    mount(`#${TOKEN}`);
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'aaaaaaaaaaaa' } });
    const meter = await screen.findByTestId('password-strength', {}, { timeout: 10_000 });
    expect(meter.querySelector('.hint')?.textContent).toBe(
      'Very easy to guess: Repeated characters like "aaa" are easy to guess.',
    );
    expect(meter.querySelector('meter')?.getAttribute('value')).toBe('0');
    fireEvent.click(screen.getByRole('button', { name: 'Set the password' }));
    expect(sent).toHaveLength(0);
    expect(screen.getByText(/^Too easy to guess\. Repeated characters/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'a brand new passphrase' } });
    expect(screen.getByTestId('password-strength').querySelector('.hint')?.textContent).toBe(
      'Very hard to guess.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Set the password' }));
    await screen.findByTestId('reset-done');
    expect(sent).toHaveLength(1);
  });

  it('an unknown, used or expired link: ask for a new one', async () => {
    answer = {
      status: 401,
      body: { success: false, error: { code: 'UNAUTHORIZED', message: 'the reset link is unknown' } },
    };
    mount(`#${TOKEN}`);
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'a brand new passphrase' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set the password' }));
    expect((await screen.findByTestId('reset-invalid')).textContent).toMatch(/Ask the operator/);
  });

  it('no token at all: no form', () => {
    mount('');
    expect(screen.getByTestId('reset-invalid')).toBeTruthy();
    expect(screen.queryByLabelText('New password')).toBeNull();
  });
});
