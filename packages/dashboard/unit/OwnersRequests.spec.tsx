// @vitest-environment jsdom
// A bounded treasury's requests on the Treasury card: what waits for the owners and where it stands, in words; the
// "Sign with your wallet" and "Revoke the service's allowance" buttons for an owner only (a viewer reads the same
// list without them); a browser without a wallet is told so; the EIP-712 domain is spelled out for the wallet.

import type { TreasuryView } from '@agent-wallet/sdk';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withDomainType } from '../src/api/browserWallet.ts';
import { ApiError } from '../src/api/errors.ts';
import type { OwnersRequest, SignRequest } from '../src/api/treasury.ts';
import type { Role } from '../src/roles.ts';
import { TreasuryCard } from '../src/views/TreasuryCard.tsx';
import {
  ownersRequestWords,
  signatureProgressWords,
  signatureRefusalWords,
} from '../src/views/treasuryWords.ts';
import { pathOf, testServices } from './support/services.tsx';

const OWNER_A = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const BOUNDED: TreasuryView = {
  mode: 'bounded',
  account: `0x${'4'.repeat(40)}`,
  owners: [OWNER_A, `0x${'b'.repeat(40)}`],
  threshold: 2,
  allowance: { perPeriod: '10.000000', period: '1d', remaining: '10.000000', resetsAt: null },
  float: '5.000000',
  atRisk: '15.000000',
};
const TYPED_DATA: SignRequest['typedData'] = {
  domain: { name: 'MultiSigDeleGator', version: '1', chainId: 31337, verifyingContract: BOUNDED.account },
  types: { PackedUserOperation: [{ name: 'sender', type: 'address' }] },
  primaryType: 'PackedUserOperation',
  message: { sender: BOUNDED.account },
};
const WAITING: OwnersRequest = {
  id: 'tx_1',
  kind: 'transfer',
  status: 'awaiting_signatures',
  amount: '250.000000',
  toAddress: `0x${'c'.repeat(40)}`,
  change: null,
  signRequest: { typedData: TYPED_DATA, digest: `0x${'d'.repeat(64)}` },
  signaturesNeeded: 1,
  signedBy: [OWNER_A],
  createdAt: '2026-11-29T08:00:00Z',
  expiresAt: '2026-12-06T08:00:00Z',
};
const page = (items: OwnersRequest[]) => ({
  items,
  total: items.length,
  page: 1,
  limit: 20,
  nextCursor: null,
});

function renderCard(role: Role) {
  const fetch = vi.fn(async (input: RequestInfo | URL) => {
    const path = pathOf(input);
    const data =
      path === '/api/v1/wallet/treasury'
        ? BOUNDED
        : path === '/api/v1/wallet/treasury/signatures'
          ? page([WAITING])
          : null;
    const body =
      data === null
        ? { success: false, error: { code: 'NOT_FOUND', message: 'no' } }
        : { success: true, data };
    return new Response(JSON.stringify(body), { status: data === null ? 404 : 200 });
  });
  const value = testServices(fetch, { sandbox: false, chain: { explorerUrl: null, confirmations: 1 }, role });
  render(value.wrap(<TreasuryCard />));
}

afterEach(() => {
  cleanup();
  delete (globalThis as { ethereum?: unknown }).ethereum;
});

describe('the owners’ requests on the Treasury card', () => {
  it('an owner sees what waits, where it stands, and the buttons', async () => {
    renderCard('owner');
    const row = await screen.findByTestId('owners-request');
    expect(row.textContent).toContain('Withdrawal of 250.00 USDC to 0xcccccc…cccccc');
    expect(screen.getByTestId('owners-request-progress').textContent).toBe(
      'Waiting for 1 more owner signature; 1 owner signed',
    );
    expect(screen.getByTestId('owners-request-signed-by').textContent).toContain(
      '0xAbCdEf…CdEf01'.slice(0, 8),
    );
    expect(screen.getByRole('button', { name: /^Sign with your wallet/ })).toBeTruthy();
    expect(screen.getByTestId('revoke-allowance').textContent).toBe('Revoke the service’s allowance');
  });

  it('a viewer reads the same list without either button', async () => {
    renderCard('viewer');
    await screen.findByTestId('owners-request');
    expect(screen.queryByRole('button', { name: /^Sign with your wallet/ })).toBeNull();
    expect(screen.queryByTestId('revoke-allowance')).toBeNull();
  });

  it('without a browser wallet, the owner is told what to use', async () => {
    renderCard('owner');
    const button = await screen.findByRole('button', { name: /^Sign with your wallet/ });
    await act(async () => {
      fireEvent.click(button);
    });
    const refused = await screen.findByTestId('owners-request-refused');
    expect(refused.textContent).toMatch(/^No browser wallet found/);
  });
});

describe('the owners’ requests in words', () => {
  it('what a request does', () => {
    expect(ownersRequestWords(WAITING)).toBe('Withdrawal of 250.00 USDC to 0xcccccc…cccccc');
    expect(ownersRequestWords({ kind: 'revoke', amount: null, toAddress: null, change: null })).toBe(
      'Revoke the service’s allowance',
    );
    const change = { owners: [`0x${'a'.repeat(40)}`, `0x${'b'.repeat(40)}`], threshold: 1 };
    expect(ownersRequestWords({ kind: 'owners', amount: null, toAddress: null, change })).toBe(
      'Change the owners to 0xaaaaaa…aaaaaa, 0xbbbbbb…bbbbbb, 1 of them to sign',
    );
  });

  it('where it stands', () => {
    const waiting = { status: 'awaiting_signatures' as const, signaturesNeeded: 2, signedBy: [] };
    expect(signatureProgressWords(waiting)).toBe(
      'Waiting for 2 more owner signatures; no owner has signed yet',
    );
    expect(signatureProgressWords({ ...waiting, status: 'submitted' })).toBe(
      'Signed by enough owners: being sent on chain',
    );
    expect(signatureProgressWords({ ...waiting, status: 'completed' })).toBe('Done: confirmed on chain');
  });

  it("a refusal names the wallet's account", () => {
    const notOwner = new ApiError(
      'VALIDATION_ERROR',
      400,
      "signature: this is not an owner's signature over this request's signRequest",
    );
    expect(signatureRefusalWords(notOwner, OWNER_A)).toBe(
      'Refused: 0xAbCdEf…CdEf01 is not one of the treasury’s owners, so its signature does not count. Sign with an owner’s account.',
    );
    expect(signatureRefusalWords(new ApiError('INVALID_STATE', 409, 'signed already'), OWNER_A)).toBe(
      '0xAbCdEf…CdEf01 has signed this request already.',
    );
  });

  it('the EIP-712 domain is spelled out for the wallet, in the standard order; given, it is kept', () => {
    expect(withDomainType(TYPED_DATA).types.EIP712Domain).toEqual([
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ]);
    const given = { ...TYPED_DATA, types: { ...TYPED_DATA.types, EIP712Domain: [] } };
    expect(withDomainType(given)).toBe(given);
  });
});
