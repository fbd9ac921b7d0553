// Spending policies, evaluated as a pure function of the policies, the payment and the wallet's spending so
// far. Every violated policy is reported (not only the first). require_approval_above and require_approvals are
// not denials: they turn the payment into a pending one that waits for one approver, or for several.
import { assert } from '../../errors.ts';
import { formatMicros } from '../money.ts';
import {
  describeTimeWindow,
  formatClock,
  insideTimeWindow,
  localTime,
  type TimeWindowRule,
} from '../time-window.ts';
import { type Period, periodOf } from './calendar-period.ts';

export const POLICY_TYPES = [
  'spend_cap_per_tx',
  'spend_cap_daily',
  'spend_cap_total',
  'address_allowlist',
  'require_approval_above',
  'spend_cap_window',
  'tx_count_cap',
  'address_blocklist',
  'recipient_cap',
  'time_window',
  'require_approvals',
  'spend_cap_period',
  'auto_freeze',
  'merchant_allowlist',
  'merchant_blocklist',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

/** The rolling windows a policy may name, and their length. */
export const WINDOWS = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
  '30d': 2_592_000_000,
} as const;
export type WindowName = keyof typeof WINDOWS;
export const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];

export type PolicyRule =
  | { type: 'spend_cap_per_tx' | 'spend_cap_daily' | 'spend_cap_total'; limitMicros: bigint }
  | { type: 'address_allowlist' | 'address_blocklist'; addresses: ReadonlySet<string> }
  /** Lower-case host names, or `*.` and a domain for its subdomains. */
  | { type: 'merchant_allowlist' | 'merchant_blocklist'; hosts: ReadonlySet<string> }
  | { type: 'require_approval_above'; amountMicros: bigint }
  | { type: 'require_approvals'; amountMicros: bigint; approvers: number }
  | { type: 'spend_cap_period'; limitMicros: bigint; period: Period; timezone: string }
  | { type: 'auto_freeze'; denials: number; window: WindowName }
  | { type: 'spend_cap_window' | 'recipient_cap'; limitMicros: bigint; window: WindowName }
  | { type: 'tx_count_cap'; count: number; window: WindowName }
  | ({ type: 'time_window' } & TimeWindowRule);

/**
 * Why a policy denies a payment, for machines and for people: `limit` and `attempted` are decimal amounts for
 * caps, whole numbers for counts, the window or the local time for time windows, null where nothing is counted
 * (lists: `attempted` is the recipient). `window` names the rolling window of a windowed policy.
 */
export interface Violation {
  policyId: string;
  policyType: string;
  reason: string;
  limit?: string | number | null;
  attempted?: string | number | null;
  window?: WindowName;
}

export interface ActivePolicy {
  id: string;
  rule: PolicyRule;
}

export interface PaymentFacts {
  amountMicros: bigint;
  /** Lower-case address. */
  toAddress: string;
  /** When the payment is decided: where rolling windows end and what time_window checks. */
  nowMs: number;
  /**
   * A paid request's (x402, MPP) seller: the lower-case host of its URL, or null when it names none that can be
   * read. Absent for every other payment, which merchant lists do not judge.
   */
  merchantHost?: string | null;
}

/** Spending in the rolling windows ending now (completed, processing and held payments). */
export interface WindowSpending {
  spentMicros(window: WindowName): bigint;
  count(window: WindowName): number;
  spentToMicros(address: string, window: WindowName): bigint;
  /** Spending since the start of the calendar period the batch began in (spend_cap_period). */
  spentInPeriodMicros(period: Period, timezone: string): bigint;
}

/** What the wallet has already committed: completed, processing and held (pending) payments. */
export interface SpendTotals {
  last24hMicros: bigint;
  allTimeMicros: bigint;
  windows: WindowSpending;
}

/** For a wallet without window policies: asking it anything is a bug (a window loaded too little). */
export const NO_WINDOWS: WindowSpending = {
  spentMicros: (window) => notLoaded(`spending in ${window}`),
  count: (window) => notLoaded(`payments in ${window}`),
  spentToMicros: (_address, window) => notLoaded(`recipient spending in ${window}`),
  spentInPeriodMicros: (period, timezone) => notLoaded(`spending this ${period} in ${timezone}`),
};

function notLoaded(what: string): never {
  assert(false, `${what} was not loaded`);
  throw new Error('unreachable');
}

export interface PolicyDecision {
  violations: Violation[];
  /**
   * The approval policies (require_approval_above, require_approvals) the payment is above, with their
   * thresholds and how many distinct approvers each asks (1 for require_approval_above).
   */
  approvalRequiredBy: Array<{ policyId: string; thresholdMicros: bigint; approvers: number }>;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export function evaluatePolicies(
  policies: readonly ActivePolicy[],
  payment: PaymentFacts,
  totals: SpendTotals,
) {
  const decision: PolicyDecision = { violations: [], approvalRequiredBy: [] };
  for (const policy of policies) {
    const found = violationOf(policy.rule, payment, totals);
    if (found !== null)
      decision.violations.push({ policyId: policy.id, policyType: policy.rule.type, ...found });
    const approvers = approversAsked(policy.rule);
    if (approvers > 0 && 'amountMicros' in policy.rule && payment.amountMicros > policy.rule.amountMicros) {
      decision.approvalRequiredBy.push({
        policyId: policy.id,
        thresholdMicros: policy.rule.amountMicros,
        approvers,
      });
    }
  }
  return decision;
}

/** How many approvers an approval policy asks for above its threshold; 0 for any other policy. */
function approversAsked(rule: PolicyRule): number {
  if (rule.type === 'require_approval_above') return 1;
  if (rule.type === 'require_approvals') return rule.approvers;
  return 0;
}

/** The distinct approvals a held payment needs: the most that any policy it is above asks for. */
export function approvalsRequired(requiredBy: PolicyDecision['approvalRequiredBy']): number {
  return requiredBy.reduce((most, p) => Math.max(most, p.approvers), 1);
}

type Found = Omit<Violation, 'policyId' | 'policyType'>;

/** Why the rule denies the payment, or null. Caps are inclusive: reaching a cap exactly is allowed. */
function violationOf(rule: PolicyRule, payment: PaymentFacts, totals: SpendTotals): Found | null {
  const amount = payment.amountMicros;
  switch (rule.type) {
    case 'spend_cap_per_tx':
      return capViolation(
        amount,
        rule.limitMicros,
        `amount ${formatMicros(amount)} is above the per-transaction cap`,
      );
    case 'spend_cap_daily':
      return capViolation(
        totals.last24hMicros + amount,
        rule.limitMicros,
        'would pass the daily cap (rolling 24 hours)',
      );
    case 'spend_cap_total':
      return capViolation(totals.allTimeMicros + amount, rule.limitMicros, 'would pass the total cap');
    case 'address_allowlist':
    case 'address_blocklist':
      return listViolation(rule.type, rule.addresses.has(payment.toAddress), payment.toAddress);
    case 'merchant_allowlist':
    case 'merchant_blocklist':
      return merchantViolation(rule.type, rule.hosts, payment.merchantHost);
    case 'require_approval_above':
    case 'require_approvals':
    case 'auto_freeze':
      return null;
    case 'spend_cap_period':
      return periodViolation(rule, payment, totals.windows);
    default:
      return windowedViolation(rule, payment, totals.windows);
  }
}

function capViolation(
  attemptedMicros: bigint,
  limitMicros: bigint,
  what: string,
  window?: WindowName,
): Found | null {
  if (attemptedMicros <= limitMicros) return null;
  const amounts = `${formatMicros(attemptedMicros)}, limit ${formatMicros(limitMicros)}`;
  return {
    reason: `${what} (${amounts})`,
    limit: formatMicros(limitMicros),
    attempted: formatMicros(attemptedMicros),
    ...(window === undefined ? {} : { window }),
  };
}

const PERIOD_WORDS: Record<Period, string> = { day: 'daily', week: 'weekly', month: 'monthly' };

/** A calendar budget: this period's spending plus the payment, against the limit; says when it resets. */
function periodViolation(
  rule: Extract<PolicyRule, { type: 'spend_cap_period' }>,
  payment: PaymentFacts,
  windows: WindowSpending,
): Found | null {
  const attempted = windows.spentInPeriodMicros(rule.period, rule.timezone) + payment.amountMicros;
  const resetsAt = new Date(periodOf(payment.nowMs, rule.period, rule.timezone).endMs).toISOString();
  const what = `would pass the ${PERIOD_WORDS[rule.period]} budget (${rule.timezone}; resets ${resetsAt})`;
  return capViolation(attempted, rule.limitMicros, what);
}

function listViolation(
  type: 'address_allowlist' | 'address_blocklist',
  listed: boolean,
  to: string,
): Found | null {
  if (type === 'address_allowlist' && !listed) {
    return { reason: 'the recipient is not on the address allowlist', limit: null, attempted: to };
  }
  if (type === 'address_blocklist' && listed) {
    return { reason: 'the recipient is on the address blocklist', limit: null, attempted: to };
  }
  return null;
}

/**
 * A merchant list judges paid requests only. A seller whose host cannot be read is not on an allowlist (denied)
 * and not on a blocklist (passes): an allowlist fails closed.
 */
function merchantViolation(
  type: 'merchant_allowlist' | 'merchant_blocklist',
  hosts: ReadonlySet<string>,
  host: string | null | undefined,
): Found | null {
  if (host === undefined) return null;
  const listed = host !== null && hostListed(hosts, host);
  const shown = host ?? 'an unnamed seller';
  if (type === 'merchant_allowlist' && !listed)
    return { reason: `the seller ${shown} is not on the merchant allowlist`, limit: null, attempted: shown };
  if (type === 'merchant_blocklist' && listed)
    return { reason: `the seller ${shown} is on the merchant blocklist`, limit: null, attempted: shown };
  return null;
}

/** Pure: is `host` named by a list of hosts, where `*.example.com` names every subdomain of example.com? */
export function hostListed(hosts: ReadonlySet<string>, host: string): boolean {
  if (hosts.has(host)) return true;
  for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.', dot + 1)) {
    if (hosts.has(`*${host.slice(dot)}`)) return true;
  }
  return false;
}

/** Pure: the lower-case host of a paid resource's URL, or null when it is not a URL. */
export function merchantHostOf(resource: string): string | null {
  try {
    const host = new URL(resource).hostname.toLowerCase();
    return host === '' ? null : host.replace(/\.$/, '');
  } catch {
    return null;
  }
}

function windowedViolation(
  rule: Extract<PolicyRule, { type: 'spend_cap_window' | 'recipient_cap' | 'tx_count_cap' | 'time_window' }>,
  payment: PaymentFacts,
  windows: WindowSpending,
): Found | null {
  switch (rule.type) {
    case 'spend_cap_window': {
      const attempted = windows.spentMicros(rule.window) + payment.amountMicros;
      return capViolation(
        attempted,
        rule.limitMicros,
        `would pass the ${rule.window} spending cap`,
        rule.window,
      );
    }
    case 'recipient_cap': {
      const attempted = windows.spentToMicros(payment.toAddress, rule.window) + payment.amountMicros;
      return capViolation(
        attempted,
        rule.limitMicros,
        `would pass the ${rule.window} cap for this recipient`,
        rule.window,
      );
    }
    case 'tx_count_cap': {
      const attempted = windows.count(rule.window) + 1;
      if (attempted <= rule.count) return null;
      const reason = `would be payment ${attempted} in ${rule.window}, above the limit of ${rule.count}`;
      return { reason, limit: rule.count, attempted, window: rule.window };
    }
    case 'time_window': {
      if (insideTimeWindow(rule, payment.nowMs)) return null;
      const local = localTime(payment.nowMs, rule.timezone);
      const at = `${local.day} ${formatClock(local.minute)}`;
      const allowed = describeTimeWindow(rule);
      return { reason: `outside the allowed hours (${allowed}; now ${at})`, limit: allowed, attempted: at };
    }
  }
}

/**
 * The first auto_freeze policy whose count the denials in its window reach, or null. `denials` holds each
 * window's count including the denial just decided.
 */
export function trippedBreaker(
  policies: readonly ActivePolicy[],
  denials: ReadonlyMap<WindowName, number>,
): { policyId: string; denials: number; window: WindowName } | null {
  for (const policy of policies) {
    if (policy.rule.type !== 'auto_freeze') continue;
    const count = denials.get(policy.rule.window);
    assert(count !== undefined, `denials in ${policy.rule.window} were not loaded`);
    if (count >= policy.rule.denials)
      return { policyId: policy.id, denials: count, window: policy.rule.window };
  }
  return null;
}

/** Remaining room under the tightest active cap of each kind; null when no such cap is active; never negative. */
export function capsRemaining(
  policies: readonly ActivePolicy[],
  totals: Pick<SpendTotals, 'last24hMicros' | 'allTimeMicros'>,
) {
  return {
    dailyCapRemaining: remainingUnder(policies, 'spend_cap_daily', totals.last24hMicros),
    totalCapRemaining: remainingUnder(policies, 'spend_cap_total', totals.allTimeMicros),
  };
}

/** The tightest calendar budget's room now and when its period ends; null when no spend_cap_period is active. */
export function periodCapRemaining(
  policies: readonly ActivePolicy[],
  nowMs: number,
  spentInPeriodMicros: (period: Period, timezone: string) => bigint,
): { remainingMicros: bigint; resetsAtMs: number } | null {
  let tightest: { remainingMicros: bigint; resetsAtMs: number } | null = null;
  for (const policy of policies) {
    if (policy.rule.type !== 'spend_cap_period') continue;
    const { limitMicros, period, timezone } = policy.rule;
    const spentMicros = spentInPeriodMicros(period, timezone);
    assert(spentMicros >= 0n, 'period spending is never negative');
    const remainingMicros = limitMicros > spentMicros ? limitMicros - spentMicros : 0n;
    const resetsAtMs = periodOf(nowMs, period, timezone).endMs;
    // Ties go to the period that resets last: the room is the same, and it lasts longer.
    const tighter =
      tightest === null ||
      remainingMicros < tightest.remainingMicros ||
      (remainingMicros === tightest.remainingMicros && resetsAtMs > tightest.resetsAtMs);
    if (tighter) tightest = { remainingMicros, resetsAtMs };
  }
  assert(tightest === null || tightest.resetsAtMs > nowMs, 'a period ends after now');
  return tightest;
}

function remainingUnder(
  policies: readonly ActivePolicy[],
  type: PolicyType,
  spentMicros: bigint,
): bigint | null {
  let remaining: bigint | null = null;
  for (const policy of policies) {
    if (policy.rule.type !== type || !('limitMicros' in policy.rule)) continue;
    const room = policy.rule.limitMicros > spentMicros ? policy.rule.limitMicros - spentMicros : 0n;
    remaining = remaining === null || room < remaining ? room : remaining;
  }
  return remaining;
}

/** Why a payment waits for the owner, in words for the owner (stored as the pending payment's reason). */
export function approvalReason(requiredBy: PolicyDecision['approvalRequiredBy']): string {
  return requiredBy
    .map((p) => {
      const who = p.approvers > 1 ? `, ${p.approvers} approvers` : '';
      return `above the approval threshold of ${formatMicros(p.thresholdMicros)}${who} (policy ${p.policyId})`;
    })
    .join('; ');
}

/**
 * Pure: does changing a policy from `before` to `after` only ever deny (or hold) more payments? A change that
 * does not provably tighten counts as loosening — it needs step-up once the owner has a second factor
 * (contract section 8): a higher limit, more allowed or fewer blocked addresses, a shorter window. A
 * time_window change tightens only when it is the same rule.
 */
export function tightens(before: PolicyRule, after: PolicyRule): boolean {
  if (before.type !== after.type) return false;
  const windowNotShorter = (a: WindowName, b: WindowName) => WINDOWS[b] >= WINDOWS[a];
  const lower = (set: ReadonlySet<string>) => new Set([...set].map((a) => a.toLowerCase()));
  switch (before.type) {
    case 'spend_cap_per_tx':
    case 'spend_cap_daily':
    case 'spend_cap_total':
      return after.type === before.type && after.limitMicros <= before.limitMicros;
    case 'require_approval_above':
      return after.type === before.type && after.amountMicros <= before.amountMicros;
    case 'require_approvals':
      return (
        after.type === before.type &&
        after.amountMicros <= before.amountMicros &&
        after.approvers >= before.approvers
      );
    case 'address_allowlist':
      return after.type === before.type && isSubset(lower(after.addresses), lower(before.addresses));
    case 'address_blocklist':
      return after.type === before.type && isSubset(lower(before.addresses), lower(after.addresses));
    case 'merchant_allowlist':
      return after.type === before.type && isSubset(after.hosts, before.hosts);
    case 'merchant_blocklist':
      return after.type === before.type && isSubset(before.hosts, after.hosts);
    case 'spend_cap_window':
    case 'recipient_cap':
      return (
        after.type === before.type &&
        after.limitMicros <= before.limitMicros &&
        windowNotShorter(before.window, after.window)
      );
    case 'tx_count_cap':
      return (
        after.type === before.type &&
        after.count <= before.count &&
        windowNotShorter(before.window, after.window)
      );
    case 'time_window':
      return after.type === before.type && sameTimeWindow(before, after);
    case 'spend_cap_period':
      return (
        after.type === before.type &&
        after.limitMicros <= before.limitMicros &&
        after.period === before.period &&
        after.timezone === before.timezone
      );
    case 'auto_freeze':
      return (
        after.type === before.type &&
        after.denials <= before.denials &&
        windowNotShorter(before.window, after.window)
      );
  }
}

function isSubset(small: ReadonlySet<string>, big: ReadonlySet<string>): boolean {
  for (const item of small) if (!big.has(item)) return false;
  return true;
}

function sameTimeWindow(a: TimeWindowRule, b: TimeWindowRule): boolean {
  return (
    a.timezone === b.timezone &&
    a.startMinute === b.startMinute &&
    a.endMinute === b.endMinute &&
    a.days.size === b.days.size &&
    isSubset(a.days, b.days)
  );
}
