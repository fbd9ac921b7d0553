// What the policy forms hold while a person types, and the checks done before anything is sent: each bad field
// gets its own message, in the same words the server would use for the same mistake where it can. Pure.

import {
  type CalendarPeriod,
  type Weekday as Day,
  isCalendarPeriod,
  type Policy,
  type PolicyParamsByType,
  type PolicyType,
  type PolicyWindow as WindowName,
} from '@agent-wallet/sdk';
import { checkAddress } from '../address.ts';
import { DAYS } from '../api/wire.ts';

/** The params of any policy type. */
export type PolicyParams = PolicyParamsByType[PolicyType];

import { checkAmount, trimAmount } from '../money.ts';
import { isDay, isWindow, POLICY_INFO, policyAddresses, policyHosts } from './policyInfo.ts';

export const ADDRESS_LIST_MAX = 1000;
/** Most hosts a merchant list may hold (the server's bound, as for addresses). */
export const HOST_LIST_MAX = 1000;

/** Longest host the server takes, `*.` included. */
import { HOST_LENGTH_MAX, HOST_PATTERN } from './merchantHost.ts';

export { HOST_LENGTH_MAX, HOST_PATTERN };
/** Most payments a tx_count_cap may allow in its window (the server's bound). */
export const TX_COUNT_MAX = 1_000_000;
const TIMEZONE_LENGTH_MAX = 64;

export interface ParamsDraft {
  amount: string;
  addresses: string;
  /** merchant_allowlist / merchant_blocklist: one host a line. */
  hosts: string;
  window: WindowName;
  count: string;
  /** spend_cap_period: the calendar period. */
  period: CalendarPeriod;
  days: Day[];
  start: string;
  end: string;
  timezone: string;
}

export interface FieldErrors {
  amount?: string;
  addresses?: string[];
  hosts?: string[];
  window?: string;
  count?: string;
  days?: string;
  start?: string;
  end?: string;
  timezone?: string;
}

export type ParamsCheck = { ok: true; params: PolicyParams } | { ok: false; errors: FieldErrors };

/** The browser's own IANA timezone (e.g. "Europe/Berlin"), "UTC" when it cannot tell. */
export function browserTimezone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function emptyDraft(timezone = browserTimezone()): ParamsDraft {
  return {
    amount: '',
    addresses: '',
    hosts: '',
    window: '24h',
    count: '',
    period: 'month',
    days: ['mon', 'tue', 'wed', 'thu', 'fri'],
    start: '09:00',
    end: '17:00',
    timezone,
  };
}

/** A form filled with a policy's current params (amounts as typed, e.g. "10.5"). */
export function draftFrom(policy: Policy, timezone = browserTimezone()): ParamsDraft {
  const p: Readonly<Record<string, unknown>> = { ...policy.params };
  const raw = p.limit ?? p.amount;
  const base = emptyDraft(timezone);
  return {
    amount: typeof raw === 'string' ? trimAmount(raw) : '',
    addresses: policyAddresses(p).join('\n'),
    hosts: policyHosts(p).join('\n'),
    window: isWindow(p.window) ? p.window : base.window,
    count:
      typeof p.count === 'number' ? String(p.count) : typeof p.denials === 'number' ? String(p.denials) : '',
    period: isCalendarPeriod(p.period) ? p.period : base.period,
    days: Array.isArray(p.days) ? p.days.filter(isDay) : base.days,
    start: typeof p.start === 'string' ? p.start : base.start,
    end: typeof p.end === 'string' ? p.end : base.end,
    timezone: typeof p.timezone === 'string' ? p.timezone : base.timezone,
  };
}

/** Splits an address or host list (one a line; commas, semicolons and spaces also separate). */
export function splitAddresses(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

export function checkAddressList(
  text: string,
): { ok: true; addresses: string[] } | { ok: false; errors: string[] } {
  const addresses = splitAddresses(text);
  const errors: string[] = [];
  if (addresses.length === 0) errors.push('Enter at least one address.');
  if (addresses.length > ADDRESS_LIST_MAX) errors.push(`At most ${ADDRESS_LIST_MAX} addresses.`);
  addresses.forEach((address, index) => {
    const check = checkAddress(address);
    if (!check.ok) errors.push(`Address ${index + 1} (${address.slice(0, 50)}): ${check.reason}`);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, addresses };
}

export type HostCheck = { ok: true; value: string } | { ok: false; reason: string };

/**
 * A seller's host for a merchant list, as the server takes it: "api.example.com", or "*.example.com" for every
 * subdomain of example.com; lower-cased, as the server stores it. A pasted URL or a port is named as such.
 */
export function checkHost(raw: string): HostCheck {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'Enter a host, e.g. api.example.com.' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || text.includes('/')) {
    return { ok: false, reason: 'Write the host only, without https:// or a path, e.g. api.example.com.' };
  }
  if (/:[0-9]*$/.test(text)) return { ok: false, reason: 'Leave out the port: write the host only.' };
  if (text.length > HOST_LENGTH_MAX) {
    return { ok: false, reason: `Too long: a host has at most ${HOST_LENGTH_MAX} characters.` };
  }
  if (text.includes('*') && !/^\*\.[^*]+$/.test(text)) {
    return { ok: false, reason: 'A * may only open the host, as in *.example.com.' };
  }
  if (!HOST_PATTERN.test(text)) {
    return {
      ok: false,
      reason:
        'Must be a host name (api.example.com) or *. and a domain (*.example.com): letters, digits, hyphens and dots.',
    };
  }
  return { ok: true, value: text.toLowerCase() };
}

export function checkHostList(text: string): { ok: true; hosts: string[] } | { ok: false; errors: string[] } {
  const hosts = splitAddresses(text);
  const errors: string[] = [];
  if (hosts.length === 0) errors.push('Enter at least one host.');
  if (hosts.length > HOST_LIST_MAX) errors.push(`At most ${HOST_LIST_MAX} hosts.`);
  const valid: string[] = [];
  hosts.forEach((host, index) => {
    const check = checkHost(host);
    if (check.ok) valid.push(check.value);
    else errors.push(`Host ${index + 1} (${host.slice(0, 50)}): ${check.reason}`);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, hosts: valid };
}

export type CountCheck = { ok: true; value: number } | { ok: false; reason: string };

/** A number of payments: a whole number from 1 to 1,000,000, in plain digits. */
export function checkCount(raw: string): CountCheck {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'Enter a number of payments.' };
  if (!/^[0-9]+$/.test(text)) return { ok: false, reason: 'Use a whole number in plain digits, e.g. 3.' };
  const value = Number(text);
  if (value < 1) return { ok: false, reason: 'Allow at least 1 payment.' };
  if (value > TX_COUNT_MAX) return { ok: false, reason: 'Allow at most 1,000,000 payments.' };
  return { ok: true, value };
}

/** require_approvals: 2 to 5 distinct approvers (the server's bounds). */
export function checkApprovers(raw: string): CountCheck {
  const text = raw.trim();
  if (!/^[0-9]+$/.test(text)) return { ok: false, reason: 'Enter a whole number of approvers, 2 to 5.' };
  const value = Number(text);
  if (value < 2 || value > 5) return { ok: false, reason: 'Ask for 2 to 5 approvers.' };
  return { ok: true, value };
}

export type ClockCheck = { ok: true; value: string } | { ok: false; reason: string };

/** A time of day as HH:MM, 00:00 to 23:59; "9:00" is taken as "09:00". */
export function checkClock(raw: string): ClockCheck {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'Enter a time as HH:MM, e.g. 09:00.' };
  const match = /^([0-9]{1,2}):([0-9]{2})$/.exec(text);
  if (match === null) return { ok: false, reason: 'Write the time as HH:MM (24-hour clock), e.g. 17:30.' };
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (hours > 23) return { ok: false, reason: 'Hours go from 00 to 23 (24-hour clock).' };
  if (minutes > 59) return { ok: false, reason: 'Minutes go from 00 to 59.' };
  return { ok: true, value: `${String(hours).padStart(2, '0')}:${match[2]}` };
}

export type TimezoneCheck = { ok: true; value: string } | { ok: false; reason: string };

/** An IANA timezone the browser knows, in its canonical spelling ("europe/berlin" -> "Europe/Berlin"). */
export function checkTimezone(raw: string): TimezoneCheck {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'Enter a timezone, e.g. Europe/Berlin or UTC.' };
  if (text.length <= TIMEZONE_LENGTH_MAX) {
    try {
      const value = new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone;
      return { ok: true, value: value.length <= TIMEZONE_LENGTH_MAX ? value : text };
    } catch {
      // Unknown zone: said below.
    }
  }
  return {
    ok: false,
    reason:
      'Not a timezone this browser knows: use an IANA name such as Europe/Berlin, America/New_York or UTC.',
  };
}

/** Validates a draft for a policy type: the params to send, or every field's problem. */
export function checkPolicyParams(type: PolicyType, draft: ParamsDraft): ParamsCheck {
  const errors: FieldErrors = {};
  switch (POLICY_INFO[type].kind) {
    case 'cap':
    case 'threshold': {
      const amount = checkAmount(draft.amount);
      if (!amount.ok) return { ok: false, errors: { amount: amount.reason } };
      const kind = POLICY_INFO[type].kind;
      return { ok: true, params: kind === 'cap' ? { limit: amount.value } : { amount: amount.value } };
    }
    case 'list': {
      const list = checkAddressList(draft.addresses);
      return list.ok
        ? { ok: true, params: { addresses: list.addresses } }
        : { ok: false, errors: { addresses: list.errors } };
    }
    case 'hosts': {
      const list = checkHostList(draft.hosts);
      return list.ok
        ? { ok: true, params: { hosts: list.hosts } }
        : { ok: false, errors: { hosts: list.errors } };
    }
    case 'windowCap': {
      const amount = checkAmount(draft.amount);
      if (!amount.ok) errors.amount = amount.reason;
      if (!isWindow(draft.window)) errors.window = 'Choose a period.';
      if (!amount.ok || !isWindow(draft.window)) return { ok: false, errors };
      return { ok: true, params: { limit: amount.value, window: draft.window } };
    }
    case 'approvers': {
      const amount = checkAmount(draft.amount);
      const approvers = checkApprovers(draft.count);
      if (!amount.ok) errors.amount = amount.reason;
      if (!approvers.ok) errors.count = approvers.reason;
      if (!amount.ok || !approvers.ok) return { ok: false, errors };
      return { ok: true, params: { amount: amount.value, approvers: approvers.value } };
    }
    case 'periodCap': {
      const amount = checkAmount(draft.amount);
      const timezone = checkTimezone(draft.timezone);
      if (!amount.ok) errors.amount = amount.reason;
      if (!timezone.ok) errors.timezone = timezone.reason;
      if (!amount.ok || !timezone.ok) return { ok: false, errors };
      return { ok: true, params: { limit: amount.value, period: draft.period, timezone: timezone.value } };
    }
    case 'breaker': {
      const count = checkCount(draft.count);
      const denials =
        count.ok && count.value > 1000 ? { ok: false as const, reason: 'At most 1,000 denials.' } : count;
      if (!denials.ok) errors.count = denials.reason;
      if (!isWindow(draft.window)) errors.window = 'Choose a period.';
      if (!denials.ok || !isWindow(draft.window)) return { ok: false, errors };
      return { ok: true, params: { denials: denials.value, window: draft.window } };
    }
    case 'count': {
      const count = checkCount(draft.count);
      if (!count.ok) errors.count = count.reason;
      if (!isWindow(draft.window)) errors.window = 'Choose a period.';
      if (!count.ok || !isWindow(draft.window)) return { ok: false, errors };
      return { ok: true, params: { count: count.value, window: draft.window } };
    }
    case 'schedule':
      return checkSchedule(draft);
  }
}

function checkSchedule(draft: ParamsDraft): ParamsCheck {
  const errors: FieldErrors = {};
  const days = DAYS.filter((day) => draft.days.includes(day));
  if (days.length === 0) errors.days = 'Choose at least one day.';
  const start = checkClock(draft.start);
  const end = checkClock(draft.end);
  const timezone = checkTimezone(draft.timezone);
  if (!start.ok) errors.start = start.reason;
  if (!end.ok) errors.end = end.reason;
  else if (start.ok && start.value === end.value)
    errors.end = 'The end must differ from the start (an end before the start runs past midnight).';
  if (!timezone.ok) errors.timezone = timezone.reason;
  if (Object.keys(errors).length > 0 || !start.ok || !end.ok || !timezone.ok) return { ok: false, errors };
  return { ok: true, params: { days, start: start.value, end: end.value, timezone: timezone.value } };
}
