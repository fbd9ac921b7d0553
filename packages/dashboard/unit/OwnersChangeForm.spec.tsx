// @vitest-environment jsdom
// The Treasury card's "Change owners": offered to an owner of a bounded treasury's multisig account only (not a
// viewer, not an admin, not a passkey-owned account, not a hot treasury), prefilled with the account's owners and
// threshold; what is wrong is said next to the field before anything is sent; the change is sent as typed, the
// owners' requests are read again, and the form says the current owners must sign it — until the owners' list,
// polling, shows the request moved on; a STEP_UP_REQUIRED refusal goes through the app's step-up question
// (api/client.ts) and the same change is sent again; the server's refusal is shown in words.

import type { TreasuryView } from '@agent-wallet/sdk';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toChecksumAddress } from '../src/address.ts';
import type { OwnersRequest, OwnersRequestStatus } from '../src/api/treasury.ts';
import type { Role } from '../src/roles.ts';
import { OWNERS_REQUESTS_POLL_MS } from '../src/views/OwnersRequests.tsx';
import { checkOwnersChange, offersOwnersChange, ownersChangeAskedWords } from '../src/views/ownersChange.ts';
import { TreasuryCard } from '../src/views/TreasuryCard.tsx';
import { pathOf, testServices } from './support/services.tsx';

/** Mixed case, so a valid EIP-55 checksum. */
const OWNER_A = toChecksumAddress('0xabcdef0123456789abcdef0123456789abcdef01');
const OWNER_B = `0x${'b'.repeat(40)}`;
const OWNER_C = `0x${'c'.repeat(40)}`;
const ACCOUNT = `0x${'4'.repeat(40)}`;
const BOUNDED: TreasuryView = {
  mode: 'bounded',
  account: ACCOUNT,
  owners: [OWNER_A, OWNER_B],
  threshold: 2,
  allowance: { perPeriod: '10.000000', period: '1d', remaining: '10.000000', resetsAt: null },
  float: '5.000000',
  atRisk: '15.000000',
};
/** A passkey-owned (hybrid) account guarded by passkeys alone: no owner address. */
const HYBRID: TreasuryView = { ...BOUNDED, owners: [], threshold: 1 };
const HOT: TreasuryView = { ...BOUNDED, mode: 'hot', owners: [], threshold: null, allowance: null };

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });
const empty = { items: [], total: 0, page: 1, limit: 20, nextCursor: null };

let ownersAnswer: () => Response;
const sent: unknown[] = [];
let signatureReads = 0;
/** What GET /wallet/treasury/signatures lists (its `status` filter applied). */
let listed: OwnersRequest[] = [];

function renderCard(role: Role, view: TreasuryView = BOUNDED) {
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = pathOf(input);
    if (path === '/api/v1/wallet/treasury') return json(200, { success: true, data: view });
    if (path === '/api/v1/wallet/treasury/signatures') {
      signatureReads += 1;
      const status = new URL(String(input), 'http://x').searchParams.get('status');
      const items = listed.filter((r) => status === null || r.status === status);
      return json(200, { success: true, data: { ...empty, items, total: items.length } });
    }
    if (path === '/api/v1/wallet/treasury/owners' && init?.method === 'POST') {
      sent.push(JSON.parse(String(init.body)));
      return ownersAnswer();
    }
    return json(404, { success: false, error: { code: 'NOT_FOUND', message: 'no' } });
  });
  const value = testServices(fetch, { sandbox: false, chain: { explorerUrl: null, confirmations: 1 }, role });
  render(value.wrap(<TreasuryCard />));
  return value;
}

async function openForm() {
  const button = await screen.findByTestId('change-owners');
  await act(async () => {
    fireEvent.click(button);
  });
  return screen.getByTestId('owners-change-form');
}

const ownerField = (form: HTMLElement, n: number) =>
  within(form).getByLabelText(`Owner ${n}`) as HTMLInputElement;
const thresholdField = (form: HTMLElement) =>
  within(form).getByLabelText('Owners who must sign a change') as HTMLInputElement;

async function send(form: HTMLElement) {
  await act(async () => {
    fireEvent.click(within(form).getByRole('button', { name: 'Ask the owners to sign this change' }));
  });
}

beforeEach(() => {
  sent.length = 0;
  signatureReads = 0;
  listed = [];
  ownersAnswer = () =>
    json(202, {
      success: true,
      data: {
        id: 'req_1',
        status: 'awaiting_signatures',
        signRequest: { typedData: {}, digest: `0x${'d'.repeat(64)}` },
        signaturesNeeded: 2,
      },
    });
});

afterEach(cleanup);

describe('the Treasury card’s change of owners', () => {
  it('prefills the account’s owners and threshold; the change is sent as typed; the owners must sign it', async () => {
    renderCard('owner');
    const form = await openForm();
    expect(ownerField(form, 1).value).toBe(OWNER_A);
    expect(ownerField(form, 2).value).toBe(OWNER_B);
    expect(thresholdField(form).value).toBe('2');
    fireEvent.click(within(form).getByRole('button', { name: 'Add an owner' }));
    fireEvent.change(ownerField(form, 3), { target: { value: ` ${OWNER_C} ` } });
    fireEvent.click(within(form).getByRole('button', { name: 'Remove owner 1' }));
    fireEvent.change(thresholdField(form), { target: { value: '1' } });
    const readsBefore = signatureReads;
    await send(form);
    expect(sent).toEqual([{ owners: [OWNER_B, OWNER_C], threshold: 1 }]);
    expect(screen.queryByTestId('owners-change-form')).toBeNull();
    expect(screen.getByTestId('overview-treasury').textContent).toContain(
      'Change asked: it is listed above, and the current owners must sign it (2 signatures needed) before it takes effect.',
    );
    expect(signatureReads).toBeGreaterThan(readsBefore);
  });

  it('says what is wrong next to the field and sends nothing', async () => {
    renderCard('owner');
    const form = await openForm();
    fireEvent.change(ownerField(form, 2), { target: { value: OWNER_A.toLowerCase() } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add an owner' }));
    fireEvent.change(ownerField(form, 3), { target: { value: '0x1234' } });
    fireEvent.change(thresholdField(form), { target: { value: '4' } });
    await send(form);
    expect(sent).toEqual([]);
    const text = form.textContent ?? '';
    expect(text).toContain('This address is named above already.');
    expect(text).toContain('An address has 40 hex digits after 0x; this one has 4.');
    expect(text).toContain('A whole number from 1 to 3: how many of the 3 owners must sign.');
    expect(ownerField(form, 1).getAttribute('aria-invalid')).toBeNull();
    expect(ownerField(form, 2).getAttribute('aria-invalid')).toBe('true');
  });

  it('asks for a proof of presence when the server wants one, then sends the same change again', async () => {
    let asked = 0;
    let refusedOnce = false;
    const accepted = ownersAnswer;
    ownersAnswer = () => {
      if (refusedOnce) return accepted();
      refusedOnce = true;
      return json(403, {
        success: false,
        error: { code: 'STEP_UP_REQUIRED', message: 'confirm it is you', methods: ['password'] },
      });
    };
    const { client } = renderCard('owner');
    client.setStepUpAsk(async () => {
      asked += 1;
      return true;
    });
    await send(await openForm());
    expect(asked).toBe(1);
    expect(sent).toEqual([
      { owners: [OWNER_A, OWNER_B], threshold: 2 },
      { owners: [OWNER_A, OWNER_B], threshold: 2 },
    ]);
    expect(screen.getByTestId('overview-treasury').textContent).toContain('Change asked: it is listed above');
  });

  it('a declined proof of presence is said in words, and nothing is asked', async () => {
    ownersAnswer = () =>
      json(403, { success: false, error: { code: 'STEP_UP_REQUIRED', message: 'x', methods: ['password'] } });
    const { client } = renderCard('owner');
    client.setStepUpAsk(async () => false);
    const form = await openForm();
    await send(form);
    expect(sent).toHaveLength(1);
    expect(within(form).getByRole('alert').textContent).toBe(
      'This needs you to confirm it is you first. Try again and confirm when asked.',
    );
  });

  it('shows the server’s refusal in words and keeps the form', async () => {
    ownersAnswer = () =>
      json(409, {
        success: false,
        error: { code: 'INVALID_STATE', message: 'the account has these owners and this threshold already' },
      });
    renderCard('owner');
    const form = await openForm();
    await send(form);
    expect(sent).toEqual([{ owners: [OWNER_A, OWNER_B], threshold: 2 }]);
    expect(within(form).getByRole('alert').textContent).toBe(
      'That cannot be done now. The account has these owners and this threshold already.',
    );
    expect(screen.getByTestId('owners-change-form')).toBe(form);
  });

  it.each<[string, Role, TreasuryView]>([
    ['a viewer', 'viewer', BOUNDED],
    ['an admin', 'admin', BOUNDED],
    ['an owner of a passkey-owned (hybrid) account', 'owner', HYBRID],
    ['an owner of a hot treasury', 'owner', HOT],
  ])('%s sees no change of owners', async (_who, role, view) => {
    renderCard(role, view);
    await screen.findByTestId('treasury-mode');
    expect(screen.queryByTestId('change-owners')).toBeNull();
    expect(screen.queryByText('Change owners')).toBeNull();
  });
});

const SIGN_REQUEST: OwnersRequest['signRequest'] = {
  typedData: {
    domain: { name: 'MultiSigDeleGator', version: '1', chainId: 31337, verifyingContract: ACCOUNT },
    types: { PackedUserOperation: [{ name: 'sender', type: 'address' }] },
    primaryType: 'PackedUserOperation',
    message: { sender: ACCOUNT },
  },
  digest: `0x${'d'.repeat(64)}`,
};

/** The change as GET /wallet/treasury/signatures lists it, in `status`. */
function changeListed(status: OwnersRequestStatus, signedBy: string[] = []): OwnersRequest {
  return {
    id: 'req_1',
    kind: 'owners',
    status,
    amount: null,
    toAddress: null,
    change: { owners: [OWNER_A, OWNER_B], threshold: 2 },
    signRequest: SIGN_REQUEST,
    signaturesNeeded: 2 - signedBy.length,
    signedBy,
    createdAt: '2026-11-29T12:00:00.000Z',
    expiresAt: null,
  };
}

describe('the note of a change asked, as the owners’ list polls', () => {
  const NOTE = 'Change asked: it is listed above, and the current owners must sign it (2 signatures needed)';
  const cardText = () => screen.getByTestId('overview-treasury').textContent ?? '';
  /** Advances the clock, then lets the answers it brought (fetch, React) settle. */
  async function tick(ms: number) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ms);
      for (let i = 0; i < 5; i += 1) await vi.advanceTimersByTimeAsync(1);
    });
  }
  async function askChange() {
    renderCard('owner');
    await tick(0);
    await act(async () => {
      fireEvent.click(screen.getByTestId('change-owners'));
    });
    // Once asked, the server lists the change as waiting.
    listed = [changeListed('awaiting_signatures')];
    await send(screen.getByTestId('owners-change-form'));
    await tick(0);
  }

  beforeEach(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('stays while the change waits, and goes once the list shows the owners signed it', async () => {
    await askChange();
    expect(cardText()).toContain(NOTE);
    // One owner signs elsewhere: still waiting, still said.
    listed = [changeListed('awaiting_signatures', [OWNER_A])];
    const reads = signatureReads;
    await tick(OWNERS_REQUESTS_POLL_MS);
    expect(signatureReads).toBeGreaterThan(reads);
    expect(cardText()).toContain(NOTE);
    // The second signs: on its way; the list's row says so, the note is gone.
    listed = [changeListed('submitted', [OWNER_A, OWNER_B])];
    await tick(OWNERS_REQUESTS_POLL_MS);
    const row = screen.getByTestId('owners-request');
    expect(row.getAttribute('data-status')).toBe('submitted');
    expect(cardText()).not.toContain('Change asked');
  });

  it('a change already on its way is said until the list shows it done', async () => {
    ownersAnswer = () =>
      json(202, {
        success: true,
        data: {
          id: 'req_1',
          status: 'submitted',
          signRequest: SIGN_REQUEST,
          signaturesNeeded: 0,
        },
      });
    renderCard('owner');
    await tick(0);
    await act(async () => {
      fireEvent.click(screen.getByTestId('change-owners'));
    });
    listed = [changeListed('submitted', [OWNER_A, OWNER_B])];
    await send(screen.getByTestId('owners-change-form'));
    await tick(0);
    expect(cardText()).toContain('it is on its way to the chain');
    listed = [changeListed('completed', [OWNER_A, OWNER_B])];
    await tick(OWNERS_REQUESTS_POLL_MS);
    expect(screen.getByTestId('owners-request').getAttribute('data-status')).toBe('completed');
    expect(cardText()).not.toContain('Change asked');
  });
});

describe('the change of owners, checked', () => {
  const draft = (rows: string[], threshold: string) => checkOwnersChange({ rows, threshold }, ACCOUNT);

  it('passes what the server takes, trimmed', () => {
    expect(draft([` ${OWNER_A}`, OWNER_B], ' 2 ').change).toEqual({
      owners: [OWNER_A, OWNER_B],
      threshold: 2,
    });
  });

  it('refuses what the server refuses', () => {
    expect(draft([], '1').listError).toBe('Name at least one owner.');
    const many = Array.from({ length: 17 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    expect(draft(many, '1').listError).toBe('At most 16 owners: remove 1.');
    expect(draft(many.slice(0, 16), '1').change).not.toBeNull();
    expect(draft([`0x${'0'.repeat(40)}`], '1').rowErrors[0]).toBe(
      'The zero address cannot sign: name an owner’s address.',
    );
    expect(draft([ACCOUNT.toUpperCase().replace('0X', '0x')], '1').rowErrors[0]).toBe(
      'The treasury’s account cannot be its own owner.',
    );
    expect(draft([OWNER_A, OWNER_A.toLowerCase()], '1').rowErrors).toEqual([
      null,
      'This address is named above already.',
    ]);
    const [first, ...rest] = OWNER_A.slice(2).match(/[a-fA-F]/g) ?? [];
    expect(rest.length).toBeGreaterThan(0);
    const flipped = OWNER_A.replace(
      first!,
      first === first!.toUpperCase() ? first!.toLowerCase() : first!.toUpperCase(),
    );
    expect(draft([flipped], '1').rowErrors[0]).toMatch(/checksum/);
    for (const threshold of ['0', '3', '1.5', '', 'two'])
      expect(draft([OWNER_A, OWNER_B], threshold).thresholdError).toBe(
        'A whole number from 1 to 2: how many of the 2 owners must sign.',
      );
    expect(draft([OWNER_A], '2').thresholdError).toBe(
      'With one owner, that owner signs: the threshold is 1.',
    );
  });

  it('is offered for a bounded account with owners’ addresses only', () => {
    expect(offersOwnersChange(BOUNDED)).toBe(true);
    expect(offersOwnersChange(HYBRID)).toBe(false);
    expect(offersOwnersChange(HOT)).toBe(false);
  });

  it('says what comes next', () => {
    expect(ownersChangeAskedWords({ status: 'awaiting_signatures', signaturesNeeded: 1 })).toBe(
      'Change asked: it is listed above, and the current owners must sign it (1 signature needed) before it takes effect.',
    );
    expect(ownersChangeAskedWords({ status: 'submitted', signaturesNeeded: 0 })).toBe(
      'Change asked: the current owners have signed it already, and it is on its way to the chain.',
    );
  });
});
