// @vitest-environment jsdom
// The Treasury card's buttons for the owners: "Sign with your passkey" on a hybrid account's requests (owners only;
// the wallet button too when the account has an owner's address), refusals in words (no passkey of the account,
// no WebAuthn in this browser), a hand-in refused with STEP_UP_REQUIRED held while the app's step-up dialog asks
// and sent again by itself (or, cancelled, refused in words), the revocation refused in words when nothing is
// left to revoke, and the allowance left shown on the card.

import type { TreasuryView } from '@agent-wallet/sdk';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/errors.ts';
import type { OwnersRequest, SignRequest } from '../src/api/treasury.ts';
import { treasuryPasskeyApi } from '../src/api/treasuryPasskey.ts';
import type { Role } from '../src/roles.ts';
import { StepUpProvider } from '../src/views/StepUp.tsx';
import { TreasuryCard } from '../src/views/TreasuryCard.tsx';
import {
  allowanceWords,
  passkeyRefusalWords,
  revokeRefusalWords,
  signerWords,
  signsWithPasskey,
} from '../src/views/treasuryWords.ts';
import { pathOf, testServices } from './support/services.tsx';

type Reply = { status: number; body: unknown };
const ok = (data: unknown, status = 200): Reply => ({ status, body: { success: true, data } });
const fail = (status: number, code: string, message: string, extra = {}): Reply => ({
  status,
  body: { success: false, error: { code, message, ...extra } },
});
const STEP_UP = fail(
  403,
  'STEP_UP_REQUIRED',
  'this operation needs presence proven in the last 300 seconds',
  {
    methods: ['password'],
  },
);

const ACCOUNT = `0x${'4'.repeat(40)}`;
const OWNER = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const SIGNATURE = `0x${'1b'.repeat(65)}`;
const view = (owners: string[]): TreasuryView => ({
  mode: 'bounded',
  account: ACCOUNT,
  owners,
  threshold: 1,
  allowance: { perPeriod: '100.000000', period: '1d', remaining: '0.000000', resetsAt: null },
  float: '40.000000',
  atRisk: '40.000000',
});
const typedData = (name: string): SignRequest['typedData'] => ({
  domain: { name, version: '1', chainId: 31337, verifyingContract: ACCOUNT },
  types: { PackedUserOperation: [{ name: 'sender', type: 'address' }] },
  primaryType: 'PackedUserOperation',
  message: { sender: ACCOUNT },
});
const request = (name: string): OwnersRequest => ({
  id: 'wd_1',
  kind: 'transfer',
  status: 'awaiting_signatures',
  amount: '250.000000',
  toAddress: `0x${'c'.repeat(40)}`,
  change: null,
  signRequest: { typedData: typedData(name), digest: `0x${'d'.repeat(64)}` },
  signaturesNeeded: 1,
  signedBy: [],
  createdAt: '2026-11-29T08:00:00Z',
  expiresAt: null,
});
const listOf = (items: OwnersRequest[]) =>
  ok({ items, total: items.length, page: 1, limit: 100, nextCursor: null });

/** Each route answers from its queue, one reply per request, the last one again when the queue runs dry. */
let routes: Record<string, Reply[]>;
const sent: { method: string; path: string; body: unknown }[] = [];

function fakeServer() {
  return vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = pathOf(input);
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    sent.push({ method, path, body });
    // The list of what waits and the list of the latest are asked one after the other: each answers its half.
    const waitingOnly = new URL(String(input), 'http://localhost').searchParams.get('status') !== null;
    const queue = routes[`${method} ${path}${waitingOnly ? '?waiting' : ''}`] ?? routes[`${method} ${path}`];
    const reply =
      (queue !== undefined && queue.length > 1 ? queue.shift() : queue?.[0]) ?? fail(404, 'NOT_FOUND', 'no');
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  });
}

function renderCard(role: Role, treasury: TreasuryView, row: OwnersRequest) {
  routes = {
    'GET /api/v1/wallet/treasury': [ok(treasury)],
    'GET /api/v1/wallet/treasury/signatures': [listOf([row])],
    ...routes,
  };
  const fetch = fakeServer();
  const value = testServices(fetch, { sandbox: false, chain: { explorerUrl: null, confirmations: 1 }, role });
  render(
    value.wrap(
      <>
        <StepUpProvider />
        <TreasuryCard />
      </>,
    ),
  );
}

/** A browser wallet holding OWNER that signs whatever it is asked (the server decides whether it counts). */
function installWallet() {
  (globalThis as { ethereum?: unknown }).ethereum = {
    request: async ({ method }: { method: string }) =>
      method === 'eth_requestAccounts' ? [OWNER] : method === 'eth_chainId' ? '0x7a69' : SIGNATURE,
  };
}

const posted = (path: string) => sent.filter((r) => r.method === 'POST' && r.path === path);

beforeEach(() => {
  routes = {};
  sent.length = 0;
});

afterEach(() => {
  cleanup();
  delete (globalThis as { ethereum?: unknown }).ethereum;
});

describe('which sign buttons a request offers', () => {
  it('a hybrid account held by passkeys alone: the passkey button only, for an owner', async () => {
    renderCard('owner', view([]), request('HybridDeleGator'));
    await screen.findByTestId('owners-request');
    expect(
      screen.getByRole('button', { name: /^Sign with your passkey: Withdrawal of 250.00 USDC/ }),
    ).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Sign with your wallet/ })).toBeNull();
  });

  it('a hybrid account with an owner’s address too: both buttons', async () => {
    renderCard('owner', view([OWNER]), request('HybridDeleGator'));
    await screen.findByTestId('owners-request');
    expect(screen.getByRole('button', { name: /^Sign with your passkey/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: /^Sign with your wallet/ })).toBeTruthy();
  });

  it('a multisig account: the wallet button only', async () => {
    renderCard('owner', view([OWNER]), request('MultiSigDeleGator'));
    await screen.findByTestId('owners-request');
    expect(screen.getByRole('button', { name: /^Sign with your wallet/ })).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Sign with your passkey/ })).toBeNull();
  });

  it('an admin reads a hybrid request without any button', async () => {
    renderCard('admin', view([]), request('HybridDeleGator'));
    await screen.findByTestId('owners-request');
    expect(within(screen.getByTestId('owners-request')).queryAllByRole('button')).toHaveLength(0);
  });

  it('a request no longer waiting offers no button', async () => {
    routes = { 'GET /api/v1/wallet/treasury/signatures?waiting': [listOf([])] };
    renderCard('owner', view([]), { ...request('HybridDeleGator'), status: 'completed' });
    await screen.findByTestId('owners-request');
    expect(within(screen.getByTestId('owners-request')).queryAllByRole('button')).toHaveLength(0);
  });
});

describe('signing with a passkey', () => {
  it('none of the person’s passkeys is a key of the account: said in words, nothing handed in', async () => {
    routes = {
      'POST /api/v1/wallet/treasury/signatures/passkey-options': [
        fail(409, 'INVALID_STATE', "none of your passkeys is one of the treasury account's keys"),
      ],
    };
    renderCard('owner', view([]), request('HybridDeleGator'));
    const button = await screen.findByRole('button', { name: /^Sign with your passkey/ });
    await act(async () => {
      fireEvent.click(button);
    });
    const refused = await screen.findByTestId('owners-request-refused');
    expect(refused.textContent).toMatch(/^None of your passkeys is a key of the treasury’s account/);
    expect(posted('/api/v1/wallet/treasury/signatures/passkey-options')[0]?.body).toEqual({ id: 'wd_1' });
    expect(posted('/api/v1/wallet/treasury/signatures')).toHaveLength(0);
  });

  it('a browser without passkeys is told so, and nothing is handed in', async () => {
    routes = {
      'POST /api/v1/wallet/treasury/signatures/passkey-options': [
        ok({
          challenge: 'q83vEjRWeJA',
          rpId: 'localhost',
          allowCredentials: [],
          userVerification: 'preferred',
        }),
      ],
    };
    renderCard('owner', view([]), request('HybridDeleGator'));
    const button = await screen.findByRole('button', { name: /^Sign with your passkey/ });
    await act(async () => {
      fireEvent.click(button);
    });
    const refused = await screen.findByTestId('owners-request-refused');
    expect(refused.textContent).toMatch(/^This browser cannot use passkeys here/);
    expect(posted('/api/v1/wallet/treasury/signatures')).toHaveLength(0);
    expect(screen.getByRole('button', { name: /^Sign with your passkey/ })).toHaveProperty('disabled', false);
  });
});

describe('the last signature', () => {
  it('moves the request on: the button goes, what came of the click stays said', async () => {
    installWallet();
    const submitted = { ...request('MultiSigDeleGator'), status: 'submitted' as const, signedBy: [OWNER] };
    routes = {
      'POST /api/v1/wallet/treasury/signatures': [
        ok({ id: 'wd_1', status: 'submitted', signaturesNeeded: 0, signedBy: [OWNER] }),
      ],
      'GET /api/v1/wallet/treasury/signatures?waiting': [listOf([request('MultiSigDeleGator')]), listOf([])],
      'GET /api/v1/wallet/treasury/signatures': [listOf([]), listOf([submitted])],
    };
    renderCard('owner', view([OWNER]), request('MultiSigDeleGator'));
    const button = await screen.findByRole('button', { name: /^Sign with your wallet/ });
    await act(async () => {
      fireEvent.click(button);
    });
    const row = await screen.findByTestId('owners-request');
    await within(row).findByText('Signed by enough owners: being sent on chain');
    expect(row.getAttribute('data-status')).toBe('submitted');
    expect(within(row).queryAllByRole('button')).toHaveLength(0);
    // Who signed stays said; where the request stands is the row's progress, which moved on.
    expect(within(row).getByRole('status').textContent).toBe('Signed with 0xAbCdEf…CdEf01.');
  });
});

describe('a hand-in that needs a step-up', () => {
  it('waits for the step-up dialog, then goes again by itself and shows the progress', async () => {
    installWallet();
    routes = {
      'POST /api/v1/wallet/treasury/signatures': [
        STEP_UP,
        ok({ id: 'wd_1', status: 'submitted', signaturesNeeded: 0, signedBy: [OWNER] }),
      ],
      'POST /api/v1/auth/step-up': [ok({ steppedUpAt: '2026-11-29T09:00:00Z' })],
    };
    renderCard('owner', view([OWNER]), request('MultiSigDeleGator'));
    const button = await screen.findByRole('button', { name: /^Sign with your wallet/ });
    await act(async () => {
      fireEvent.click(button);
    });
    const dialog = await screen.findByRole('dialog', { name: 'Confirm it’s you' });
    fireEvent.change(within(dialog).getByLabelText('Your password'), { target: { value: 'pw' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    });
    await screen.findByText('Signed with 0xAbCdEf…CdEf01.');
    const handIns = posted('/api/v1/wallet/treasury/signatures');
    expect(handIns).toHaveLength(2);
    expect(handIns[1]?.body).toEqual({ id: 'wd_1', signature: SIGNATURE });
    expect(screen.queryByTestId('owners-request-refused')).toBeNull();
  });

  it('cancelled, the refusal is said in words and the button is usable again', async () => {
    installWallet();
    routes = { 'POST /api/v1/wallet/treasury/signatures': [STEP_UP] };
    renderCard('owner', view([OWNER]), request('MultiSigDeleGator'));
    const button = await screen.findByRole('button', { name: /^Sign with your wallet/ });
    await act(async () => {
      fireEvent.click(button);
    });
    expect(button.textContent).toBe('Waiting for your wallet…');
    const dialog = await screen.findByRole('dialog', { name: 'Confirm it’s you' });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    });
    const refused = await screen.findByTestId('owners-request-refused');
    expect(refused.textContent).toBe(
      'This needs you to confirm it is you first. Try again and confirm when asked.',
    );
    expect(screen.getByRole('button', { name: /^Sign with your wallet/ }).textContent).toBe(
      'Sign with your wallet',
    );
  });
});

describe('a passkey hand-in refused for a step-up', () => {
  const OPTIONS = { challenge: 'q83vEjRWeJA', rpId: 'localhost', allowCredentials: [] };
  const assertion = (n: number) =>
    ({ id: 'cred', rawId: 'cred', type: 'public-key', response: { n }, clientExtensionResults: {} }) as never;

  it('is not sent again as it was: once presence is proven, a fresh answer of the passkey is handed in', async () => {
    routes = {
      'POST /api/v1/wallet/treasury/signatures/passkey-options': [ok(OPTIONS)],
      'POST /api/v1/wallet/treasury/signatures': [
        STEP_UP,
        ok({ id: 'wd_1', status: 'submitted', signaturesNeeded: 0, signedBy: ['passkey:cred'] }),
      ],
    };
    const { client } = testServices(fakeServer());
    const asked: string[][] = [];
    client.setStepUpAsk(async (methods) => {
      asked.push(methods);
      return true;
    });
    let answers = 0;
    const signed = await treasuryPasskeyApi(client, async () => assertion(++answers)).signWithPasskey({
      id: 'wd_1',
    });
    expect(signed.status).toBe('submitted');
    expect(asked).toEqual([['password']]);
    expect(sent.map((r) => r.path.replace('/api/v1/wallet/treasury/', ''))).toEqual([
      'signatures/passkey-options',
      'signatures',
      'signatures/passkey-options',
      'signatures',
    ]);
    // The answer given before the step-up is never sent again: the second hand-in carries the browser's next one.
    const handedIn = (i: number) =>
      (sent[i]?.body as { passkey?: { response: unknown } } | undefined)?.passkey?.response;
    expect(handedIn(1)).toEqual({ n: 1 });
    expect(handedIn(3)).toEqual({ n: 2 });
  });

  it('declined, the refusal comes back and nothing more is sent', async () => {
    routes = {
      'POST /api/v1/wallet/treasury/signatures/passkey-options': [ok(OPTIONS)],
      'POST /api/v1/wallet/treasury/signatures': [STEP_UP],
    };
    const { client } = testServices(fakeServer());
    client.setStepUpAsk(async () => false);
    const refused = await treasuryPasskeyApi(client, async () => assertion(1))
      .signWithPasskey({ id: 'wd_1' })
      .then(
        () => null,
        (error: unknown) => error as ApiError,
      );
    expect(refused?.code).toBe('STEP_UP_REQUIRED');
    expect(sent).toHaveLength(2);
  });
});

describe('revoking the service’s allowance', () => {
  it('nothing left to revoke: the dialog says so in words', async () => {
    routes = {
      'POST /api/v1/wallet/treasury/revoke': [
        fail(409, 'INVALID_STATE', 'no delegation to the service is active: there is nothing to revoke'),
      ],
    };
    renderCard('owner', view([OWNER]), request('MultiSigDeleGator'));
    fireEvent.click(await screen.findByTestId('revoke-allowance'));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke the service’s allowance?' });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Ask the owners to revoke it' }));
    });
    expect((await within(dialog).findByRole('alert')).textContent).toContain(
      'Nothing is left to revoke: the service holds no allowance from the owners’ account',
    );
  });
});

describe('the allowance on the card, and the words', () => {
  it('shows what is left of the allowance this period', async () => {
    renderCard('owner', view([OWNER]), request('MultiSigDeleGator'));
    expect((await screen.findByTestId('treasury-allowance')).textContent).toBe(
      'Allowance left this period: 0.00 USDC of 100.00 USDC',
    );
  });

  it('a passkey request, a passkey signer, the refusals', () => {
    expect(signsWithPasskey(request('HybridDeleGator'))).toBe(true);
    expect(signsWithPasskey(request('MultiSigDeleGator'))).toBe(false);
    expect(signerWords('passkey:q83vEjRWeJA')).toBe('a passkey');
    expect(signerWords(OWNER)).toBe('0xAbCdEf…CdEf01');
    expect(passkeyRefusalWords(new ApiError('INVALID_STATE', 409, 'this passkey signed already'))).toBe(
      'Your passkey has signed this request already.',
    );
    expect(passkeyRefusalWords(new ApiError('VALIDATION_ERROR', 400, 'passkey: not a key'))).toMatch(
      /^Refused: this passkey is not one of the treasury account’s keys/,
    );
    expect(revokeRefusalWords(new ApiError('NOT_FOUND', 404, 'no'))).toMatch(/^Not found/);
    expect(
      allowanceWords(
        { perPeriod: '10.000000', period: '1d', remaining: '4.000000', resetsAt: '2026-11-30T00:00:00Z' },
        () => 'tomorrow',
      ),
    ).toBe('Allowance left this period: 4.00 USDC of 10.00 USDC (resets tomorrow)');
  });
});
