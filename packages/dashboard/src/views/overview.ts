// The overview's numbers: which agent wallets it shows (a few, so the page stays a handful of requests whatever
// the number of wallets), what "today" means (since midnight in the owner's timezone, the way a calendar budget
// counts a day: calendarPeriod.ts), what an agent spent today, and the latest payments across those wallets.
// Pure: unit-tested.
import type { AgentWallet, Transaction } from '@agent-wallet/sdk';
import { isSpending } from '../activity.ts';
import { periodBounds } from '../calendarPeriod.ts';
import { toMicros } from '../money.ts';

/**
 * Wallets the overview loads the policies and newest transactions of (two requests each, out of the 30 a minute
 * the agent-wallets bucket allows, which the 15 s poll of the wallet list shares).
 */
export const OVERVIEW_WALLETS = 6;
/** Payments in the "latest payments" list: as many as fit beside the approvals on a laptop screen. */
export const LATEST_PAYMENTS = 6;
/** Waiting payments shown in full on the overview; the Approvals page has the rest. */
export const OVERVIEW_APPROVALS = 3;

/** The browser's timezone (IANA name): the owner's, as far as the dashboard knows; UTC when it cannot tell. */
export function ownerTimezone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/**
 * The first instant of today in `timezone` (local midnight where it exists), as a `spend_cap_period` of a day
 * counts it; an unknown timezone falls back to the browser's own midnight.
 */
export function startOfToday(nowMs: number, timezone: string): number {
  const bounds = periodBounds(nowMs, 'day', timezone);
  if (bounds !== null) return bounds.startMs;
  const now = new Date(nowMs);
  return new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
}

/**
 * The wallets the overview shows: those with payments waiting first (most waiting first), then frozen ones, then
 * the rest in the server's order (newest first); at most `max`.
 */
export function pickWallets<T extends Pick<AgentWallet, 'pendingApprovals' | 'frozen'>>(
  wallets: readonly T[],
  max = OVERVIEW_WALLETS,
): T[] {
  const rank = (wallet: T) => (wallet.pendingApprovals > 0 ? 2 : wallet.frozen ? 1 : 0);
  return wallets
    .map((wallet, index) => ({ wallet, index }))
    .sort(
      (a, b) =>
        rank(b.wallet) - rank(a.wallet) ||
        b.wallet.pendingApprovals - a.wallet.pendingApprovals ||
        a.index - b.index,
    )
    .slice(0, max)
    .map(({ wallet }) => wallet);
}

/**
 * From when a wallet's loaded transactions (newest first) are complete: -Infinity when every one is loaded, else
 * the oldest loaded one's time (older ones exist but were not loaded).
 */
export function loadedSince(
  transactions: readonly Pick<Transaction, 'createdAt'>[],
  hasOlder: boolean,
): number {
  if (!hasOlder) return Number.NEGATIVE_INFINITY;
  const oldest = Date.parse(transactions.at(-1)?.createdAt ?? '');
  return Number.isNaN(oldest) ? Number.POSITIVE_INFINITY : oldest;
}

export interface SpentToday {
  /** Paid or on its way (completed, processing), micro-units. */
  paid: bigint;
  /** Held for an approval (pending), micro-units: caps count it too. */
  held: bigint;
  /** False when older transactions of today were not loaded: the numbers are a floor. */
  complete: boolean;
}

/** What an agent spent since `sinceMs` (payments and paid APIs; not the owner's funding or withdrawals). */
export function spentToday(
  transactions: readonly Transaction[],
  sinceMs: number,
  loadedSinceMs: number,
): SpentToday {
  let paid = 0n;
  let held = 0n;
  for (const tx of transactions) {
    if (!isSpending(tx) || Date.parse(tx.createdAt) < sinceMs) continue;
    if (tx.status === 'completed' || tx.status === 'processing') paid += toMicros(tx.amount);
    else if (tx.status === 'pending') held += toMicros(tx.amount);
  }
  return { paid, held, complete: sinceMs >= loadedSinceMs };
}

/** The newest payments across the wallets' loaded transactions, newest first (ties: the later id first). */
export function latestPayments(
  lists: readonly (readonly Transaction[])[],
  max = LATEST_PAYMENTS,
): Transaction[] {
  return lists
    .flat()
    .filter(isSpending)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
    .slice(0, max);
}
