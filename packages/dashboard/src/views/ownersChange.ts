// A change of a bounded treasury's owners and threshold, checked in the browser before it is sent: the same rules
// the server applies (packages/server/src/chain/bounded/owners-change.ts), said next to the field at fault so a
// typo costs no request. The server stays the judge (its refusal is shown as it comes). Pure: unit-tested.
import type { TreasuryView } from '@agent-wallet/sdk';
import { checkAddress } from '../address.ts';

/** The most owners a change may name (the server's limit). */
export const OWNERS_MAX = 16;
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

/** What the form holds: one address per row, and the threshold as typed. */
export interface OwnersDraft {
  rows: string[];
  threshold: string;
}

export interface OwnersCheck {
  /** Per row: why its address cannot be an owner, or null. */
  rowErrors: (string | null)[];
  thresholdError: string | null;
  /** About the list as a whole (none, or too many). */
  listError: string | null;
  /** What to send, once nothing is wrong. */
  change: { owners: string[]; threshold: number } | null;
}

/** The form's first values: the owners and threshold the account has now. */
export function draftOf(view: Pick<TreasuryView, 'owners' | 'threshold'>): OwnersDraft {
  return {
    rows: view.owners.length > 0 ? [...view.owners] : [''],
    threshold: view.threshold === null ? '1' : String(view.threshold),
  };
}

/**
 * Whether the dashboard offers the change: a bounded treasury whose account has owners' addresses and a
 * threshold. The treasury's view does not name the account's kind; a passkey-owned (hybrid) account shows no
 * owner address, or one with a threshold of 1 — the latter is indistinguishable from a one-owner multisig, and the
 * server refuses its change with words the form shows.
 */
export function offersOwnersChange(view: Pick<TreasuryView, 'mode' | 'owners' | 'threshold'>): boolean {
  return view.mode === 'bounded' && view.owners.length > 0 && view.threshold !== null;
}

function rowError(raw: string, earlier: string[], account: string): string | null {
  const checked = checkAddress(raw);
  if (!checked.ok) return checked.reason;
  const lower = checked.value.toLowerCase();
  if (lower === ZERO_ADDRESS) return 'The zero address cannot sign: name an owner’s address.';
  if (lower === account.toLowerCase()) return 'The treasury’s account cannot be its own owner.';
  if (earlier.some((other) => other.trim().toLowerCase() === lower))
    return 'This address is named above already.';
  return null;
}

function thresholdError(raw: string, owners: number): string | null {
  const text = raw.trim();
  const most = Math.max(owners, 1);
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isInteger(value) && value >= 1 && value <= most) return null;
  return most === 1
    ? 'With one owner, that owner signs: the threshold is 1.'
    : `A whole number from 1 to ${most}: how many of the ${most} owners must sign.`;
}

export function checkOwnersChange(draft: OwnersDraft, account: string): OwnersCheck {
  const { rows } = draft;
  const rowErrors = rows.map((row, i) => rowError(row, rows.slice(0, i), account));
  const listError =
    rows.length === 0
      ? 'Name at least one owner.'
      : rows.length > OWNERS_MAX
        ? `At most ${OWNERS_MAX} owners: remove ${rows.length - OWNERS_MAX}.`
        : null;
  const threshold = thresholdError(draft.threshold, rows.length);
  const ok = listError === null && threshold === null && rowErrors.every((e) => e === null);
  return {
    rowErrors,
    thresholdError: threshold,
    listError,
    change: ok ? { owners: rows.map((row) => row.trim()), threshold: Number(draft.threshold.trim()) } : null,
  };
}

/** What the form says once the server took the change (202). */
export function ownersChangeAskedWords(answer: {
  status: 'awaiting_signatures' | 'submitted';
  signaturesNeeded: number;
}): string {
  if (answer.status === 'submitted')
    return 'Change asked: the current owners have signed it already, and it is on its way to the chain.';
  const needed = answer.signaturesNeeded;
  return `Change asked: it is listed above, and the current owners must sign it (${needed} signature${needed === 1 ? '' : 's'} needed) before it takes effect.`;
}
