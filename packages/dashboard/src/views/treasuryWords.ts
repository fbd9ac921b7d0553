// The treasury in words (the overview's Treasury card, evm rail): who holds the money, and what whoever breached
// the server could move with it. Pure: unit-tested.
import type { TreasuryView } from '@agent-wallet/sdk';
import { shortAddress } from '../address.ts';
import type { ApiError } from '../api/errors.ts';
import type { OwnersRequest, SignatureProgress } from '../api/treasury.ts';
import { formatUsdc } from '../money.ts';

/** Why the card shows no figures while GET /wallet/treasury answers 503 (the chain cannot be read). */
export const TREASURY_UNAVAILABLE =
  'The chain cannot be read right now, so the treasury is not shown; it will be as soon as the chain answers again.';

/** Under a hot treasury: what would bound it, and how to have it. */
export const BOUNDED_NOTE =
  'A bounded treasury (a smart account the owners hold, the service capped per period by the chain) is set up with TREASURY_MODE=bounded.';

/** Who holds the treasury, in a sentence: "Hot: the service's key holds all of it". */
export function treasuryModeWords(
  view: Pick<TreasuryView, 'mode' | 'owners' | 'threshold' | 'allowance'>,
): string {
  switch (view.mode) {
    case 'hot':
      return "Hot: the service's key holds all of it";
    case 'bounded': {
      const owners = view.owners.length;
      const signers =
        view.threshold === null || owners === 0
          ? ''
          : ` (${view.threshold} of ${owners} owner${owners === 1 ? '' : 's'} sign a change)`;
      const cap =
        view.allowance === null
          ? ''
          : `; the service may move ${formatUsdc(view.allowance.perPeriod)} per ${view.allowance.period}`;
      return `Bounded: a smart account the owners hold keeps it${signers}${cap}`;
    }
    default:
      // A mode this dashboard does not know yet: its name, as the server sent it.
      return String(view.mode);
  }
}

/**
 * What the service may still take from the owners' account this period: "Allowance left this period: 4.00 USDC of
 * 10.00 USDC (resets …)". Once the owners revoked it, nothing is left until they grant a new one.
 */
export function allowanceWords(
  allowance: NonNullable<TreasuryView['allowance']>,
  format: (iso: string) => string,
): string {
  const resets = allowance.resetsAt === null ? '' : ` (resets ${format(allowance.resetsAt)})`;
  return `Allowance left this period: ${formatUsdc(allowance.remaining)} of ${formatUsdc(allowance.perPeriod)}${resets}`;
}

/** "At risk if the server is breached: 1,250.50 USDC". */
export function atRiskWords(atRisk: string): string {
  return `At risk if the server is breached: ${formatUsdc(atRisk)}`;
}

/** What a request of the owners' account does: "Withdrawal of 250.00 USDC to 0x1234ab…cdef01". */
export function ownersRequestWords(
  request: Pick<OwnersRequest, 'kind' | 'amount' | 'toAddress' | 'change'>,
): string {
  if (request.kind === 'revoke') return 'Revoke the service’s allowance';
  if (request.kind === 'owners') {
    const change = request.change;
    if (change === null) return 'Change the owners';
    const owners = change.owners.map(shortAddress).join(', ');
    return `Change the owners to ${owners}, ${change.threshold} of them to sign`;
  }
  const amount = request.amount === null ? '' : ` of ${formatUsdc(request.amount)}`;
  const to = request.toAddress === null ? '' : ` to ${shortAddress(request.toAddress)}`;
  return `Withdrawal${amount}${to}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Where a request stands: how many owners must still sign, or what became of it. */
export function signatureProgressWords(
  progress: Pick<SignatureProgress, 'status' | 'signaturesNeeded' | 'signedBy'>,
): string {
  switch (progress.status) {
    case 'awaiting_signatures': {
      const signed = progress.signedBy.length;
      const so = signed === 0 ? 'no owner has signed yet' : `${plural(signed, 'owner')} signed`;
      return `Waiting for ${plural(progress.signaturesNeeded, 'more owner signature')}; ${so}`;
    }
    case 'submitted':
      return 'Signed by enough owners: being sent on chain';
    case 'completed':
      return 'Done: confirmed on chain';
    case 'failed':
      return 'Failed: nothing left the owners’ account (a withdrawal’s money is back in the master wallet)';
    default:
      return String(progress.status);
  }
}

/** The server's refusal of a signature, in words naming the wallet's account that signed. */
export function signatureRefusalWords(error: ApiError, signer: string): string {
  const who = shortAddress(signer);
  if (error.code === 'VALIDATION_ERROR' && /not an owner/.test(error.serverMessage))
    return `Refused: ${who} is not one of the treasury’s owners, so its signature does not count. Sign with an owner’s account.`;
  if (error.code === 'INVALID_STATE') return `${who} has signed this request already.`;
  if (error.code === 'NOT_FOUND') return 'This request is no longer there.';
  return error.message;
}

/**
 * A hybrid account's request (TREASURY_ACCOUNT_KIND=hybrid) is signed with the owner's passkey: its typed data is
 * addressed to a HybridDeleGator (a multisig account's to a MultiSigDeleGator).
 */
export function signsWithPasskey(request: Pick<OwnersRequest, 'signRequest'>): boolean {
  return request.signRequest.typedData.domain.name === 'HybridDeleGator';
}

/**
 * The server's (or the browser's) refusal of a passkey signature, in words. The passkey options answer 409 when
 * none of this person's passkeys is a key of the account; the hand-in answers 409 when that passkey signed already.
 */
export function passkeyRefusalWords(error: ApiError): string {
  if (error.code === 'INVALID_STATE' && /none of/i.test(error.serverMessage))
    return 'None of your passkeys is a key of the treasury’s account, so you cannot sign for it here. Sign with the passkey the account was created with.';
  if (error.code === 'INVALID_STATE') return 'Your passkey has signed this request already.';
  if (error.code === 'VALIDATION_ERROR')
    return 'Refused: this passkey is not one of the treasury account’s keys (or it signed something else), so its signature does not count.';
  if (error.code === 'NOT_FOUND') return 'This request is no longer there.';
  return error.message;
}

/** The revocation refused: 409 when the service holds no allowance (none granted, or revoked already). */
export function revokeRefusalWords(error: ApiError): string {
  if (error.code === 'INVALID_STATE')
    return 'Nothing is left to revoke: the service holds no allowance from the owners’ account (none was granted, or it is revoked already).';
  return error.message;
}

/** A signer as the list shows it: an owner's address shortened, a passkey as such. */
export function signerWords(signer: string): string {
  return signer.startsWith('passkey:') ? 'a passkey' : shortAddress(signer);
}

/** When a waiting withdrawal fails unsigned. */
export function expiresWords(expiresAt: string | null, format: (iso: string) => string): string | null {
  return expiresAt === null ? null : `Fails unsigned, its money back, on ${format(expiresAt)}`;
}
