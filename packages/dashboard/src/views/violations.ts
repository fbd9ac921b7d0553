// A violated policy in the dashboard's own words, written from the violation's structured fields (limit,
// attempted, window); the server's `reason` is only the fallback, for a policy type this dashboard does not know
// or an answer without those fields. Pure: unit-tested.
import type { PolicyViolation as Violation } from '@agent-wallet/sdk';
import { shortAddress } from '../address.ts';
import { compareAmounts, formatAmount, formatUsdc } from '../money.ts';
import { dayName, describeDays, isDay, isWindow, WINDOW_WORDS } from './policyInfo.ts';

/** A decimal amount as the wire writes it ("150.000000"), or null. */
function amountOf(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? String(value) : value;
  return typeof text === 'string' && /^[0-9]+(\.[0-9]+)?$/.test(text) ? text : null;
}

function wholeNumber(value: unknown): number | null {
  const number = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : null;
}

const ALLOWED_HOURS = /^([a-z]{3}(?:,[a-z]{3})*) ([0-9]{2}:[0-9]{2})-([0-9]{2}:[0-9]{2}) (\S+)$/;
const LOCAL_TIME = /^([a-z]{3}) ([0-9]{2}:[0-9]{2})$/;

/** "mon,tue,wed,thu,fri 09:00-17:00 Europe/Berlin" -> "Mon–Fri 09:00–17:00 Europe/Berlin" (else as it came). */
export function describeAllowedHours(limit: string): string {
  const match = ALLOWED_HOURS.exec(limit.trim());
  if (match === null) return limit;
  const [, days = '', start = '', end = '', timezone = ''] = match;
  return `${describeDays(days.split(','))} ${start}–${end} ${timezone}`;
}

/** "sat 10:15" -> "Sat 10:15" (else as it came). */
export function describeLocalTime(attempted: string): string {
  const match = LOCAL_TIME.exec(attempted.trim());
  const day = match?.[1];
  return match !== null && isDay(day) ? `${dayName(day)} ${match[2]}` : attempted;
}

/**
 * The seller's host a merchant list judged, or null when there is none to name (the server writes "an unnamed
 * seller" for a URL without a readable host).
 */
function sellerHost(attempted: unknown): string | null {
  if (typeof attempted !== 'string') return null;
  const host = attempted.trim();
  return host.length > 0 && host.length <= 253 && /^[A-Za-z0-9.-]+$/.test(host) ? host : null;
}

/** The violation in words, e.g. "Over the 100.00 USDC per-payment cap (tried 150.00)". */
export function describeViolation(violation: Violation): string {
  return ownWords(violation) ?? fallback(violation);
}

function fallback(violation: Violation): string {
  const reason = typeof violation.reason === 'string' ? violation.reason.trim() : '';
  return reason === '' ? `Breaks the policy “${violation.policyType}”` : reason;
}

function ownWords(v: Violation): string | null {
  const limit = amountOf(v.limit);
  const attempted = amountOf(v.attempted);
  const window = isWindow(v.window) ? WINDOW_WORDS[v.window] : null;
  const cap = (budget: string, reach: string) =>
    limit === null || attempted === null
      ? null
      : `Over the ${formatUsdc(limit)} ${budget} (would reach ${formatAmount(attempted)}${reach})`;
  switch (v.policyType as string) {
    case 'spend_cap_per_tx':
      return limit === null || attempted === null
        ? null
        : `Over the ${formatUsdc(limit)} per-payment cap (tried ${formatAmount(attempted)})`;
    case 'spend_cap_daily':
      return cap('daily cap', ' in 24 hours');
    case 'spend_cap_total':
      return cap('total cap', '');
    case 'spend_cap_window':
      return window === null ? null : cap(`${window.adjective} budget`, '');
    case 'recipient_cap':
      return window === null ? null : cap(`${window.adjective} budget for this recipient`, '');
    case 'tx_count_cap': {
      const count = wholeNumber(v.limit);
      const nth = wholeNumber(v.attempted);
      if (count === null || nth === null || window === null) return null;
      return `Would be payment ${nth} in ${window.span}; the limit is ${count}`;
    }
    case 'address_blocklist':
      return typeof v.attempted === 'string' && v.attempted !== ''
        ? `Recipient ${shortAddress(v.attempted)} is blocked`
        : 'The recipient is blocked';
    case 'address_allowlist':
      return typeof v.attempted === 'string' && v.attempted !== ''
        ? `Recipient ${shortAddress(v.attempted)} is not on the allowed list`
        : 'The recipient is not on the allowed list';
    case 'merchant_blocklist': {
      const host = sellerHost(v.attempted);
      return host === null ? 'The seller is blocked' : `Seller ${host} is blocked`;
    }
    case 'merchant_allowlist': {
      const host = sellerHost(v.attempted);
      return host === null
        ? 'The seller is not on the allowed list'
        : `Seller ${host} is not on the allowed list`;
    }
    case 'time_window': {
      if (typeof v.limit !== 'string' || v.limit === '') return null;
      const when = typeof v.attempted === 'string' && v.attempted !== '' ? v.attempted : null;
      const hours = `Outside allowed hours (${describeAllowedHours(v.limit)})`;
      return when === null ? hours : `${hours}; it was ${describeLocalTime(when)}`;
    }
    default:
      return null;
  }
}

/** "Denied by a policy" / "Denied by 2 policies". */
export function deniedBy(count: number): string {
  return count === 1 ? 'Denied by a policy' : `Denied by ${count} policies`;
}

/**
 * Whether a rejection reason is only the server's joined violation reasons (then the violations, in the
 * dashboard's words, say it better); an owner's typed reason is kept as written.
 */
export function isPolicyRejection(rejectionReason: string | null, violations: Violation[] | null): boolean {
  if (rejectionReason === null || violations === null || violations.length === 0) return false;
  return rejectionReason === violations.map((v) => v.reason).join('; ');
}

// A require_approvals policy adds how many members must approve (", 2 approvers"): the count is shown on its own.
const THRESHOLD =
  /^above the approval threshold of ([0-9]+(?:\.[0-9]+)?)(?:, [0-9]+ approvers)? \(policy [^()]*\)$/;

/** Why a payment waits for approval, from what the server stored as its reason. */
export type ApprovalWhy = { kind: 'threshold'; threshold: string } | { kind: 'asked'; reason: string | null };

/**
 * The server stores "above the approval threshold of 10.000000 (policy pol_…)" as the reason of a payment it
 * held; anything else is the agent's own reason for asking (request_approval), shown as the agent wrote it.
 */
export function approvalWhy(reason: string | null): ApprovalWhy {
  const text = reason?.trim() ?? '';
  if (text === '') return { kind: 'asked', reason: null };
  const thresholds = text.split('; ').map((part) => THRESHOLD.exec(part)?.[1]);
  if (thresholds.every((amount): amount is string => amount !== undefined)) {
    // Several thresholds: the payment is above all of them; the highest says the most.
    const highest = thresholds.reduce((a, b) => (compareAmounts(a, b) >= 0 ? a : b));
    return { kind: 'threshold', threshold: highest };
  }
  return { kind: 'asked', reason: text };
}

/** The reason in one sentence (the agent's own words, when it gave some, are shown beside it as text). */
export function approvalSentence(why: ApprovalWhy, amount: string): string {
  if (why.kind === 'threshold') {
    return `${formatUsdc(amount)} is above your ${formatUsdc(why.threshold)} approval threshold.`;
  }
  return why.reason === null
    ? 'The agent asked for your approval without giving a reason.'
    : 'The agent asked for your approval:';
}

/**
 * An audit trail note in words: the server's approval-threshold text and a policy denial's joined reasons are
 * rewritten; anything else (an owner's rejection reason, an agent's reason) is someone's own text, kept as is.
 */
export function describeNote(
  note: string,
  violations: Violation[] | null,
): { text: string; quoted: boolean } {
  const why = approvalWhy(note);
  if (why.kind === 'threshold') {
    return { text: `Above your ${formatUsdc(why.threshold)} approval threshold`, quoted: false };
  }
  if (isPolicyRejection(note, violations)) return { text: deniedBy(violations?.length ?? 0), quoted: false };
  return { text: note, quoted: true };
}
