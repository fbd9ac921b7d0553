// Human names and descriptions of the five policy types, and the text of a policy's params.
import type { PolicyType } from '../api/types.ts';
import { formatUsdc } from '../money.ts';

export const POLICY_INFO: Record<
  PolicyType,
  { title: string; description: string; field: 'limit' | 'amount' | 'addresses' }
> = {
  spend_cap_per_tx: {
    title: 'Maximum per payment',
    description: 'Deny any single payment above this amount.',
    field: 'limit',
  },
  spend_cap_daily: {
    title: 'Daily spending cap',
    description:
      'Deny a payment when the last 24 hours of spending (including held payments) would pass this amount.',
    field: 'limit',
  },
  spend_cap_total: {
    title: 'Total spending cap',
    description: 'Deny a payment when all spending so far (including held payments) would pass this amount.',
    field: 'limit',
  },
  address_allowlist: {
    title: 'Allowed recipients',
    description: 'Deny payments to any address that is not on this list.',
    field: 'addresses',
  },
  require_approval_above: {
    title: 'Approval above an amount',
    description: 'A payment above this amount is not denied: it waits for your approval.',
    field: 'amount',
  },
};

export function policyTitle(type: string): string {
  return (POLICY_INFO as Record<string, { title: string } | undefined>)[type]?.title ?? type;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function describePolicyParams(type: PolicyType, params: Record<string, unknown>): string {
  switch (type) {
    case 'spend_cap_per_tx':
      return `At most ${formatUsdc(text(params.limit))} per payment`;
    case 'spend_cap_daily':
      return `At most ${formatUsdc(text(params.limit))} in any 24 hours`;
    case 'spend_cap_total':
      return `At most ${formatUsdc(text(params.limit))} in total`;
    case 'require_approval_above':
      return `Payments above ${formatUsdc(text(params.amount))} need your approval`;
    case 'address_allowlist': {
      const count = Array.isArray(params.addresses) ? params.addresses.length : 0;
      return `Only to ${count} allowed address${count === 1 ? '' : 'es'}`;
    }
  }
}

export function policyAddresses(params: Record<string, unknown>): string[] {
  return Array.isArray(params.addresses)
    ? params.addresses.filter((a): a is string => typeof a === 'string')
    : [];
}
