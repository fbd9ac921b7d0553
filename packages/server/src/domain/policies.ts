// Spending policies, evaluated as a pure function of the policies, the payment and the wallet's spending so
// far. Every violated policy is reported (not only the first). require_approval_above is not a denial: it
// turns the payment into a pending one that waits for the owner.
import { formatMicros } from './money.ts';

export const POLICY_TYPES = [
  'spend_cap_per_tx',
  'spend_cap_daily',
  'spend_cap_total',
  'address_allowlist',
  'require_approval_above',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

export type PolicyRule =
  | { type: 'spend_cap_per_tx' | 'spend_cap_daily' | 'spend_cap_total'; limitMicros: bigint }
  | { type: 'address_allowlist'; addresses: ReadonlySet<string> }
  | { type: 'require_approval_above'; amountMicros: bigint };

export interface Violation {
  policyId: string;
  policyType: string;
  reason: string;
}

export interface ActivePolicy {
  id: string;
  rule: PolicyRule;
}

export interface PaymentFacts {
  amountMicros: bigint;
  /** Lower-case address. */
  toAddress: string;
}

/** What the wallet has already committed: completed, processing and held (pending) payments. */
export interface SpendTotals {
  last24hMicros: bigint;
  allTimeMicros: bigint;
}

export interface PolicyDecision {
  violations: Violation[];
  /** The require_approval_above policies the payment is above, with their thresholds. */
  approvalRequiredBy: Array<{ policyId: string; thresholdMicros: bigint }>;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export function evaluatePolicies(
  policies: readonly ActivePolicy[],
  payment: PaymentFacts,
  totals: SpendTotals,
) {
  const decision: PolicyDecision = { violations: [], approvalRequiredBy: [] };
  for (const policy of policies) {
    const reason = violationReason(policy.rule, payment, totals);
    if (reason !== null)
      decision.violations.push({ policyId: policy.id, policyType: policy.rule.type, reason });
    if (policy.rule.type === 'require_approval_above' && payment.amountMicros > policy.rule.amountMicros) {
      decision.approvalRequiredBy.push({ policyId: policy.id, thresholdMicros: policy.rule.amountMicros });
    }
  }
  return decision;
}

/** Why the rule denies the payment, or null. Caps are inclusive: reaching a cap exactly is allowed. */
function violationReason(rule: PolicyRule, payment: PaymentFacts, totals: SpendTotals): string | null {
  const amount = payment.amountMicros;
  switch (rule.type) {
    case 'spend_cap_per_tx':
      return amount > rule.limitMicros
        ? `amount ${formatMicros(amount)} is above the per-transaction cap of ${formatMicros(rule.limitMicros)}`
        : null;
    case 'spend_cap_daily':
      return totals.last24hMicros + amount > rule.limitMicros
        ? `would bring the last 24 hours to ${formatMicros(totals.last24hMicros + amount)}, above the daily cap of ${formatMicros(rule.limitMicros)}`
        : null;
    case 'spend_cap_total':
      return totals.allTimeMicros + amount > rule.limitMicros
        ? `would bring total spending to ${formatMicros(totals.allTimeMicros + amount)}, above the total cap of ${formatMicros(rule.limitMicros)}`
        : null;
    case 'address_allowlist':
      return rule.addresses.has(payment.toAddress) ? null : 'the recipient is not on the address allowlist';
    case 'require_approval_above':
      return null;
  }
}

/** Remaining room under the tightest active cap of each kind; null when no such cap is active; never negative. */
export function capsRemaining(policies: readonly ActivePolicy[], totals: SpendTotals) {
  return {
    dailyCapRemaining: remainingUnder(policies, 'spend_cap_daily', totals.last24hMicros),
    totalCapRemaining: remainingUnder(policies, 'spend_cap_total', totals.allTimeMicros),
  };
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
    .map((p) => `above the approval threshold of ${formatMicros(p.thresholdMicros)} (policy ${p.policyId})`)
    .join('; ');
}
