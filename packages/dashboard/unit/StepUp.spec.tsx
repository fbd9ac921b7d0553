// @vitest-environment jsdom

import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toApiError } from '../src/api/errors.ts';
import { AuthScreen } from '../src/views/AuthScreen.tsx';
import { StepUpProvider } from '../src/views/StepUp.tsx';
import { pathOf, testServices } from './support/services.tsx';

type Reply = { status: number; body: unknown };
const ok = (data: unknown, status = 200): Reply => ({ status, body: { success: true, data } });
const fail = (status: number, code: string, message: string, extra = {}): Reply => ({
  status,
  body: { success: false, error: { code, message, ...extra } },
});
const stepUpRequired = (methods: string[]) =>
  fail(403, 'STEP_UP_REQUIRED', 'this operation needs presence proven in the last 300 seconds', { methods });

/** Each route answers from its queue, one reply per request, the last one again when the queue runs dry. */
let routes: Record<string, Reply[]>;
const sent: { method: string; path: string; body: unknown }[] = [];

function services() {
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = pathOf(input);
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    sent.push({ method, path, body });
    const queue = routes[`${method} ${path}`];
    const reply =
      (queue !== undefined && queue.length > 1 ? queue.shift() : queue?.[0]) ?? fail(404, 'NOT_FOUND', 'no');
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  });
  return testServices(fetch);
}

async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

const ENTRY = {
  id: 'wad_1',
  address: `0x${'ab'.repeat(20)}`,
  label: 'Cold storage',
  status: 'pending',
  activatesAt: '2026-01-02T00:00:00Z',
  createdAt: '2026-01-01T00:00:00Z',
};

beforeEach(() => {
  sent.length = 0;
});

afterEach(() => {
  cleanup();
});

describe('the step-up dialog', () => {
  it('holds a refused request, takes the password, and the request goes again by itself', async () => {
    routes = {
      'POST /api/v1/wallet/withdrawal-addresses': [stepUpRequired(['password']), ok(ENTRY, 201)],
      'POST /api/v1/auth/step-up': [
        fail(401, 'INVALID_CREDENTIALS', 'the password is incorrect'),
        ok({ steppedUpAt: '2026-01-01T00:00:00Z' }),
      ],
    };
    const { client, wrap } = services();
    render(wrap(<StepUpProvider />));
    let added: unknown;
    const adding = client.custody.addWithdrawalAddress(ENTRY.address, 'Cold storage').then((value) => {
      added = value;
    });
    const dialog = await screen.findByRole('dialog', { name: 'Confirm it’s you' });
    expect(within(dialog).queryByRole('button', { name: 'Use a passkey' })).toBeNull();
    fireEvent.change(within(dialog).getByLabelText('Your password'), { target: { value: 'wrong' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('That password is not right.');
    fireEvent.change(within(dialog).getByLabelText('Your password'), { target: { value: 'right one' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await act(async () => {
      await adding;
    });
    expect(added).toEqual(ENTRY);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/wallet/withdrawal-addresses',
      'POST /api/v1/auth/step-up',
      'POST /api/v1/auth/step-up',
      'POST /api/v1/wallet/withdrawal-addresses',
    ]);
    expect(sent[2]?.body).toEqual({ password: 'right one' });
    expect(sent[3]?.body).toEqual(sent[0]?.body);
  });

  it('offers a passkey and a code when a factor is active (never the password), and Cancel lets the refusal through', async () => {
    routes = { 'POST /api/v1/wallet/withdrawals': [stepUpRequired(['totp', 'passkey', 'recovery_code'])] };
    const { client, wrap } = services();
    render(wrap(<StepUpProvider />));
    const failed = client.custody
      .withdraw({ toAddress: ENTRY.address, amount: '5', idempotencyKey: 'k' })
      .then(
        () => null,
        (error: unknown) => toApiError(error),
      );
    const dialog = await screen.findByRole('dialog', { name: 'Confirm it’s you' });
    within(dialog).getByRole('button', { name: 'Use a passkey' });
    expect(within(dialog).getByLabelText('Authentication code')).toBeTruthy();
    expect(within(dialog).queryByLabelText('Your password')).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    const error = await failed;
    expect(error?.code).toBe('STEP_UP_REQUIRED');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(sent).toHaveLength(1);
  });

  it('sends a code without its spaces', async () => {
    routes = {
      'DELETE /api/v1/auth/mfa/totp': [
        stepUpRequired(['totp', 'recovery_code']),
        ok({ id: 'totp', deleted: true }),
      ],
      'POST /api/v1/auth/step-up': [ok({ steppedUpAt: '2026-01-01T00:00:00Z' })],
    };
    const { client, wrap } = services();
    render(wrap(<StepUpProvider />));
    const removing = client.custody.removeTotp();
    const dialog = await screen.findByRole('dialog', { name: 'Confirm it’s you' });
    fireEvent.change(within(dialog).getByLabelText('Authentication code'), {
      target: { value: ' 123 456 ' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await act(async () => {
      expect(await removing).toEqual({ id: 'totp', deleted: true });
    });
    expect(sent[1]?.body).toEqual({ code: '123456' });
  });
});

describe('the login’s second step', () => {
  const SESSION = {
    user: { id: 'usr_1', email: 'owner@example.com', createdAt: '2026-01-01T00:00:00Z' },
    token: 'jwt-after-mfa',
  };
  const mfaRequired = (methods: string[]) =>
    fail(401, 'MFA_REQUIRED', 'a second factor is needed', { mfaToken: 'mfa_1', methods });

  async function logIn() {
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'owner@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'correct horse' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));
    await screen.findByRole('heading', { name: 'Two-step verification' });
  }

  it('asks for a code after the password; a wrong one is said so, the right one logs in', async () => {
    routes = {
      'POST /api/v1/auth/login': [mfaRequired(['totp', 'recovery_code'])],
      'POST /api/v1/auth/login/mfa': [
        fail(401, 'INVALID_CREDENTIALS', 'the code is wrong or was already used'),
        ok(SESSION),
      ],
    };
    const { client } = services();
    client.setToken(undefined);
    const onAuthenticated = vi.fn();
    render(<AuthScreen client={client} mode="login" notice={null} onAuthenticated={onAuthenticated} />);
    await logIn();
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).toBeNull();
    const field = screen.getByLabelText('Authentication code');
    fireEvent.change(field, { target: { value: '000000' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/^That code is not right/);
    expect(onAuthenticated).not.toHaveBeenCalled();
    fireEvent.change(field, { target: { value: '123 456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await settle();
    expect(onAuthenticated).toHaveBeenCalledWith(SESSION);
    expect(sent.filter((r) => r.path === '/api/v1/auth/login/mfa').map((r) => r.body)).toEqual([
      { mfaToken: 'mfa_1', code: '000000' },
      { mfaToken: 'mfa_1', code: '123456' },
    ]);
  });

  it('offers the passkey alone when that is the only factor', async () => {
    routes = { 'POST /api/v1/auth/login': [mfaRequired(['passkey'])] };
    const { client } = services();
    client.setToken(undefined);
    render(<AuthScreen client={client} mode="login" notice={null} onAuthenticated={() => {}} />);
    await logIn();
    screen.getByRole('button', { name: 'Use a passkey' });
    expect(screen.queryByRole('textbox')).toBeNull();
  });

  it('starts over when the attempt ended (too many wrong codes, or too late)', async () => {
    routes = {
      'POST /api/v1/auth/login': [mfaRequired(['totp'])],
      'POST /api/v1/auth/login/mfa': [fail(401, 'UNAUTHORIZED', 'the mfaToken is unknown, used, expired')],
    };
    const { client } = services();
    client.setToken(undefined);
    const onAuthenticated = vi.fn();
    render(<AuthScreen client={client} mode="login" notice={null} onAuthenticated={onAuthenticated} />);
    await logIn();
    fireEvent.change(screen.getByLabelText('Authentication code'), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await screen.findByRole('heading', { name: 'Log in' });
    expect(screen.getByTestId('auth-notice').textContent).toMatch(/That login attempt has ended/);
    expect(onAuthenticated).not.toHaveBeenCalled();
  });
});
