// A policy change (the audit trail) in words: what was done to which policy, and for an update what changed.
// Pure: unit-tested.

import type { Policy, PolicyChangeAction as PolicyAction, PolicyChange } from '@agent-wallet/sdk';
import { shortAddress } from '../address.ts';
import {
  describePolicyParams,
  POLICY_INFO,
  policyAddresses,
  policyHosts,
  policyTitle,
} from './policyInfo.ts';

export const ACTION_WORDS: Record<PolicyAction, string> = {
  created: 'Added',
  updated: 'Changed',
  paused: 'Paused',
  resumed: 'Resumed',
  deleted: 'Deleted',
};

export function actionWord(action: string): string {
  return (ACTION_WORDS as Record<string, string | undefined>)[action] ?? action;
}

function describe(policy: Policy): string {
  return describePolicyParams(policy.type, policy.params);
}

/** Keys in a fixed order, so two equal params compare equal whatever order the server wrote them in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function someAddresses(addresses: string[]): string {
  return someOf(addresses.map(shortAddress));
}

function someOf(items: string[]): string {
  const shown = items.slice(0, 3).join(', ');
  return items.length > 3 ? `${shown} and ${items.length - 3} more` : shown;
}

/** What was added to a list and removed from it ("added a, b; removed c"), or null when nothing was. */
function listChange(old: ReadonlySet<string>, now: ReadonlySet<string>, names: (items: string[]) => string) {
  const added = [...now].filter((a) => !old.has(a));
  const removed = [...old].filter((a) => !now.has(a));
  const parts = [
    added.length > 0 ? `added ${names(added)}` : null,
    removed.length > 0 ? `removed ${names(removed)}` : null,
  ].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join('; ') : null;
}

/** What an update changed in the params, in words (null: the params stayed the same). */
export function describeParamsChange(before: Policy, after: Policy): string | null {
  if (canonical(before.params) === canonical(after.params)) return null;
  const kind = POLICY_INFO[after.type]?.kind;
  if (kind === 'list') {
    const old = new Set(policyAddresses(before.params).map((a) => a.toLowerCase()));
    const now = new Set(policyAddresses(after.params).map((a) => a.toLowerCase()));
    const change = listChange(old, now, someAddresses);
    if (change !== null) return `${change} (now ${now.size} address${now.size === 1 ? '' : 'es'})`;
  }
  if (kind === 'hosts') {
    const old = new Set(policyHosts(before.params).map((h) => h.toLowerCase()));
    const now = new Set(policyHosts(after.params).map((h) => h.toLowerCase()));
    const change = listChange(old, now, someOf);
    if (change !== null) return `${change} (now ${now.size} host${now.size === 1 ? '' : 's'})`;
  }
  return `from “${describe(before)}” to “${describe(after)}”`;
}

/** The change in words, e.g. "Daily spending cap: from “At most 100.00 USDC …” to “At most 50.00 USDC …”". */
export function describePolicyChange(change: PolicyChange): string {
  const policy = change.after ?? change.before;
  if (policy === null) return `Policy ${change.policyId}`;
  const title = policyTitle(policy.type);
  const { before, after } = change;
  if (change.action === 'updated' && before !== null && after !== null) {
    const parts = [describeParamsChange(before, after)];
    if (before.active !== after.active) parts.push(after.active ? 'resumed' : 'paused');
    const what = parts.filter((part): part is string => part !== null);
    return `${title}: ${what.length === 0 ? `saved without changes (${describe(after)})` : what.join('; and ')}`;
  }
  const paused = change.action === 'created' && after !== null && !after.active ? ' (paused)' : '';
  return `${title}: ${describe(policy)}${paused}`;
}
