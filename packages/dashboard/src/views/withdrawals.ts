// Withdrawals from the master wallet: the address book's waiting time in words, which entries can be used now,
// and the checks of the forms. Pure: unit-tested.

import { checkAddress } from '../address.ts';
import type { WithdrawalAddress } from '../api/custody.ts';

export const ADDRESS_LABEL_MAX = 100;
export const MEMO_MAX = 500;

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Whole seconds left as a countdown: "2 d 3 h 4 min", "23 h 05 min 09 s", "4 min 05 s", "9 s"; "now" at zero.
 * The leading unit is not padded, the ones after it are (so the text does not jump as it ticks).
 */
export function formatCountdown(seconds: number): string {
  const total = Math.max(0, Math.ceil(seconds));
  if (total === 0) return 'now';
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  if (days > 0) return `${days} d ${hours} h ${minutes} min`;
  if (hours > 0) return `${hours} h ${pad(minutes)} min ${pad(secs)} s`;
  if (minutes > 0) return `${minutes} min ${pad(secs)} s`;
  return `${secs} s`;
}

/** The waiting time of a new address in words: "24 hours", "10 minutes", "30 seconds", "no wait". */
export function describeDelay(seconds: number): string {
  if (seconds <= 0) return 'no wait';
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds % 86_400 === 0) return unit(seconds / 86_400, 'day');
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

/** Usable now: the server said active, or its activatesAt has passed on this clock. */
export function isActive(entry: Pick<WithdrawalAddress, 'status' | 'activatesAt'>, now: number): boolean {
  if (entry.status === 'active') return true;
  const at = Date.parse(entry.activatesAt);
  return !Number.isNaN(at) && at <= now;
}

/** The entries a withdrawal may go to now, in the book's order. */
export function activeAddresses<T extends Pick<WithdrawalAddress, 'status' | 'activatesAt'>>(
  entries: readonly T[],
  now: number,
): T[] {
  return entries.filter((entry) => isActive(entry, now));
}

/** The label of a book entry for an address (any case), or null when it is not in the book. */
export function labelOf(entries: readonly Pick<WithdrawalAddress, 'address' | 'label'>[], address: string) {
  const lower = address.toLowerCase();
  return entries.find((entry) => entry.address.toLowerCase() === lower)?.label ?? null;
}

export interface AddressDraft {
  label: string;
  address: string;
}

/** What is wrong with a new book entry, field by field (empty when it may be sent). */
export function addressDraftErrors(draft: AddressDraft): { label?: string; address?: string } {
  const errors: { label?: string; address?: string } = {};
  const label = draft.label.trim();
  if (label === '') errors.label = 'Give the address a name, e.g. “Cold storage”.';
  else if (label.length > ADDRESS_LABEL_MAX) errors.label = `Use at most ${ADDRESS_LABEL_MAX} characters.`;
  const address = checkAddress(draft.address);
  if (!address.ok) errors.address = address.reason;
  return errors;
}
