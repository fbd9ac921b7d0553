// Human names and descriptions of the policy types, and the text of a policy's params (pure: unit-tested).
import type { Weekday as Day, PolicyType, PolicyWindow as WindowName } from '@agent-wallet/sdk';
import { DAYS, WINDOWS } from '../api/wire.ts';
import { formatUsdc, groupThousands } from '../money.ts';

/** Which inputs a policy type's form has. */
export type PolicyKind =
  | 'cap'
  | 'threshold'
  | 'approvers'
  | 'list'
  | 'hosts'
  | 'windowCap'
  | 'periodCap'
  | 'breaker'
  | 'count'
  | 'schedule';

export const POLICY_INFO: Record<PolicyType, { title: string; description: string; kind: PolicyKind }> = {
  spend_cap_per_tx: {
    title: 'Maximum per payment',
    description: 'Deny any single payment above this amount.',
    kind: 'cap',
  },
  spend_cap_daily: {
    title: 'Daily spending cap',
    description:
      'Deny a payment when the last 24 hours of spending (including held payments) would pass this amount.',
    kind: 'cap',
  },
  spend_cap_window: {
    title: 'Spending cap per period',
    description:
      'Deny a payment when spending in the chosen rolling period (including held payments) would pass this amount.',
    kind: 'windowCap',
  },
  spend_cap_total: {
    title: 'Total spending cap',
    description: 'Deny a payment when all spending so far (including held payments) would pass this amount.',
    kind: 'cap',
  },
  recipient_cap: {
    title: 'Cap per recipient',
    description:
      'Deny a payment when what one recipient received in the chosen rolling period would pass this amount.',
    kind: 'windowCap',
  },
  tx_count_cap: {
    title: 'Payments per period',
    description:
      'Deny a payment when the agent already made this many payments in the chosen rolling period.',
    kind: 'count',
  },
  address_allowlist: {
    title: 'Allowed recipients',
    description: 'Deny payments to any address that is not on this list.',
    kind: 'list',
  },
  address_blocklist: {
    title: 'Blocked recipients',
    description: 'Deny payments to any address on this list.',
    kind: 'list',
  },
  merchant_allowlist: {
    title: 'Allowed sellers',
    description:
      'Deny paid API requests (x402 and MPP) to any seller whose host is not on this list; other payments are not affected.',
    kind: 'hosts',
  },
  merchant_blocklist: {
    title: 'Blocked sellers',
    description:
      'Deny paid API requests (x402 and MPP) to any seller whose host is on this list; other payments are not affected.',
    kind: 'hosts',
  },
  time_window: {
    title: 'Allowed hours',
    description: 'Deny payments outside these days and hours, in the timezone you choose.',
    kind: 'schedule',
  },
  require_approval_above: {
    title: 'Approval above an amount',
    description: 'A payment above this amount is not denied: it waits for your approval.',
    kind: 'threshold',
  },
  spend_cap_period: {
    title: 'Budget per calendar period',
    description:
      'Deny a payment when spending since the start of this day, week (from Monday) or month, in your timezone, would pass this amount. Resets at the period’s start.',
    kind: 'periodCap',
  },
  auto_freeze: {
    title: 'Freeze after repeated denials',
    description:
      'Freeze the wallet when this many payments are denied (by a policy or for lack of balance) within the chosen period; you unfreeze it.',
    kind: 'breaker',
  },
  require_approvals: {
    title: 'Approval by several people above an amount',
    description:
      'A payment above this amount waits until this many different members with approve rights approve it; one rejection rejects it.',
    kind: 'approvers',
  },
};

/** The order of the "Policy type" choices: caps first, then lists and hours, approval last. */
export const POLICY_TYPE_ORDER: readonly PolicyType[] = [
  'spend_cap_per_tx',
  'spend_cap_daily',
  'spend_cap_window',
  'spend_cap_total',
  'spend_cap_period',
  'recipient_cap',
  'tx_count_cap',
  'address_allowlist',
  'address_blocklist',
  'merchant_allowlist',
  'merchant_blocklist',
  'time_window',
  'auto_freeze',
  'require_approval_above',
  'require_approvals',
];

export function policyTitle(type: string): string {
  return (POLICY_INFO as Record<string, { title: string } | undefined>)[type]?.title ?? type;
}

export function isWindow(value: unknown): value is WindowName {
  return typeof value === 'string' && (WINDOWS as readonly string[]).includes(value);
}

export const WINDOW_WORDS: Record<WindowName, { per: string; span: string; adjective: string }> = {
  '1h': { per: 'per hour', span: '1 hour', adjective: '1-hour' },
  '24h': { per: 'per 24 hours', span: '24 hours', adjective: '24-hour' },
  '7d': { per: 'per 7 days', span: '7 days', adjective: '7-day' },
  '30d': { per: 'per 30 days', span: '30 days', adjective: '30-day' },
};

const DAY_NAMES: Record<Day, { short: string; long: string }> = {
  mon: { short: 'Mon', long: 'Monday' },
  tue: { short: 'Tue', long: 'Tuesday' },
  wed: { short: 'Wed', long: 'Wednesday' },
  thu: { short: 'Thu', long: 'Thursday' },
  fri: { short: 'Fri', long: 'Friday' },
  sat: { short: 'Sat', long: 'Saturday' },
  sun: { short: 'Sun', long: 'Sunday' },
};

export function dayName(day: Day, form: 'short' | 'long' = 'short'): string {
  return DAY_NAMES[day][form];
}

export function isDay(value: unknown): value is Day {
  return typeof value === 'string' && (DAYS as readonly string[]).includes(value);
}

/**
 * Days in week order, runs of three or more as a range: ["mon",…,"fri"] -> "Mon–Fri", ["mon","wed"] ->
 * "Mon, Wed", ["sat","sun"] -> "Sat, Sun", all seven -> "Every day".
 */
export function describeDays(days: readonly string[]): string {
  const set = new Set(days.filter(isDay));
  if (set.size === DAYS.length) return 'Every day';
  const parts: string[] = [];
  let run: Day[] = [];
  const flush = () => {
    if (run.length >= 3) parts.push(`${dayName(run[0]!)}–${dayName(run[run.length - 1]!)}`);
    else parts.push(...run.map((day) => dayName(day)));
    run = [];
  };
  for (const day of DAYS) {
    if (set.has(day)) run.push(day);
    else flush();
  }
  flush();
  return parts.length === 0 ? 'No days' : parts.join(', ');
}

/** "09:00–17:00", and "22:00–06:00 (overnight)" when the end is before the start. */
export function describeHours(start: string, end: string): string {
  return `${start}–${end}${end < start ? ' (overnight)' : ''}`;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function usdc(value: unknown): string {
  return formatUsdc(text(value));
}

export function windowPer(value: unknown): string {
  return isWindow(value) ? WINDOW_WORDS[value].per : `per ${text(value)}`;
}

/** "1 payment", "1,000 payments". */
export function paymentCount(count: number): string {
  return `${Number.isInteger(count) ? groupThousands(String(count)) : String(count)} payment${count === 1 ? '' : 's'}`;
}

/** The policy in words, e.g. "At most 100.00 USDC per 24 hours" or "Mon–Fri 09:00–17:00 (Europe/Berlin)". */
export function describePolicyParams(type: string, policyParams: object): string {
  const params = policyParams as Readonly<Record<string, unknown>>;
  switch (type) {
    case 'spend_cap_per_tx':
      return `At most ${usdc(params.limit)} per payment`;
    case 'spend_cap_daily':
      return `At most ${usdc(params.limit)} in any 24 hours`;
    case 'spend_cap_total':
      return `At most ${usdc(params.limit)} in total`;
    case 'spend_cap_window':
      return `At most ${usdc(params.limit)} ${windowPer(params.window)}`;
    case 'recipient_cap':
      return `At most ${usdc(params.limit)} to any one recipient ${windowPer(params.window)}`;
    case 'tx_count_cap': {
      const count = typeof params.count === 'number' ? params.count : Number(params.count);
      return `At most ${paymentCount(count)} ${windowPer(params.window)}`;
    }
    case 'require_approval_above':
      return `Payments above ${usdc(params.amount)} need your approval`;
    case 'spend_cap_period':
      return `At most ${usdc(params.limit)} per ${text(params.period)} (${text(params.timezone)})`;
    case 'auto_freeze': {
      const denials = typeof params.denials === 'number' ? params.denials : Number(params.denials);
      return `Freeze after ${paymentCount(denials).replace('payment', 'denied payment')} ${windowPer(params.window)}`;
    }
    case 'require_approvals':
      return `Payments above ${usdc(params.amount)} need ${text(String(params.approvers))} approvals`;
    case 'address_allowlist': {
      const count = policyAddresses(params).length;
      return `Only to ${count} allowed address${count === 1 ? '' : 'es'}`;
    }
    case 'address_blocklist': {
      const count = policyAddresses(params).length;
      return `Never to ${count} blocked address${count === 1 ? '' : 'es'}`;
    }
    case 'merchant_allowlist': {
      const count = policyHosts(params).length;
      return `Paid requests only to ${count} allowed seller${count === 1 ? '' : 's'}`;
    }
    case 'merchant_blocklist': {
      const count = policyHosts(params).length;
      return `Paid requests never to ${count} blocked seller${count === 1 ? '' : 's'}`;
    }
    case 'time_window': {
      const days = Array.isArray(params.days) ? params.days : [];
      return `${describeDays(days)} ${describeHours(text(params.start), text(params.end))} (${text(params.timezone)})`;
    }
    default:
      return type;
  }
}

export function policyAddresses(params: object): string[] {
  const addresses = (params as { addresses?: unknown }).addresses;
  return Array.isArray(addresses) ? addresses.filter((a): a is string => typeof a === 'string') : [];
}

/** A merchant list's hosts ("api.example.com", "*.example.com"). */
export function policyHosts(params: object): string[] {
  const hosts = (params as { hosts?: unknown }).hosts;
  return Array.isArray(hosts) ? hosts.filter((h): h is string => typeof h === 'string') : [];
}
