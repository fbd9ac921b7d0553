// The overview's numbers: which wallets it shows, when "today" starts in the owner's timezone, what an agent spent
// today, the latest payments across wallets, and a cap whose window reaches past the transactions loaded.
import type { AgentWallet, Policy, Transaction } from '@agent-wallet/sdk';
import { describe, expect, it } from 'vitest';
import { capBars, capText } from '../src/activity.ts';
import {
  latestPayments,
  loadedSince,
  ownerTimezone,
  pickWallets,
  spentToday,
  startOfToday,
} from '../src/views/overview.ts';

let seq = 0;
function tx(fields: Partial<Transaction>): Transaction {
  seq += 1;
  return {
    id: `tx_${String(seq).padStart(3, '0')}`,
    walletId: 'w',
    type: 'payment',
    status: 'completed',
    amount: '1.000000',
    currency: 'USDC',
    toAddress: `0x${'ab'.repeat(20)}`,
    memo: null,
    reason: null,
    rail: 'sandbox',
    txHash: null,
    rejectionReason: null,
    violations: null,
    initiatedBy: 'key:k',
    resource: null,
    approvalsRequired: null,
    approvals: [],
    expiresAt: null,
    createdAt: '2026-12-01T08:00:00.000Z',
    updatedAt: '2026-12-01T08:00:00.000Z',
    ...fields,
  };
}

const utc = (text: string) => Date.parse(text);

describe('startOfToday', () => {
  it('is local midnight in the owner’s timezone, not UTC’s', () => {
    // 1 Dec 2026, 00:30 in Berlin is still 30 Nov in UTC.
    const now = utc('2026-11-30T23:30:00Z');
    expect(startOfToday(now, 'Europe/Berlin')).toBe(utc('2026-11-30T23:00:00Z'));
    expect(startOfToday(now, 'UTC')).toBe(utc('2026-11-30T00:00:00Z'));
    // Late evening in New York is the next day in UTC.
    expect(startOfToday(utc('2026-12-01T03:00:00Z'), 'America/New_York')).toBe(utc('2026-11-30T05:00:00Z'));
  });

  it('on a DST change day the day starts at that day’s midnight (a 23-hour day)', () => {
    // 29 Mar 2026: Berlin moves from +01:00 to +02:00 at 02:00.
    expect(startOfToday(utc('2026-03-29T20:00:00Z'), 'Europe/Berlin')).toBe(utc('2026-03-28T23:00:00Z'));
  });

  it('an unknown timezone falls back to the browser’s own midnight', () => {
    const now = utc('2026-12-01T12:00:00Z');
    const local = new Date(now);
    const midnight = new Date(local.getFullYear(), local.getMonth(), local.getDate()).getTime();
    expect(startOfToday(now, 'Not/AZone')).toBe(midnight);
  });

  it('the owner’s timezone is the browser’s, a name Intl knows', () => {
    const zone = ownerTimezone();
    expect(() => new Intl.DateTimeFormat('en', { timeZone: zone })).not.toThrow();
  });
});

describe('spentToday', () => {
  const since = utc('2026-11-30T23:00:00Z');
  const txs = [
    tx({ amount: '4.000000' }),
    tx({ amount: '2.500000', status: 'processing' }),
    tx({ amount: '25.000000', status: 'pending' }),
    tx({ amount: '9.000000', status: 'rejected' }),
    tx({ amount: '100.000000', type: 'fund' }),
    tx({ amount: '0.100000', type: 'x402' }),
    tx({ amount: '7.000000', createdAt: '2026-11-30T22:59:59.999Z' }),
  ];

  it('counts payments and paid APIs since midnight; held apart; not funding, denials or yesterday', () => {
    expect(spentToday(txs, since, Number.NEGATIVE_INFINITY)).toEqual({
      paid: 6_600_000n,
      held: 25_000_000n,
      complete: true,
    });
  });

  it('is a floor when the transactions loaded start after midnight', () => {
    expect(spentToday(txs, since, utc('2026-12-01T01:00:00Z')).complete).toBe(false);
    expect(spentToday(txs, since, since).complete).toBe(true);
  });
});

describe('loadedSince', () => {
  const page = [tx({ createdAt: '2026-12-01T08:00:00.000Z' }), tx({ createdAt: '2026-11-29T10:00:00.000Z' })];

  it('every transaction loaded: complete from the beginning of time', () => {
    expect(loadedSince(page, false)).toBe(Number.NEGATIVE_INFINITY);
  });

  it('older ones exist: complete from the oldest loaded', () => {
    expect(loadedSince(page, true)).toBe(utc('2026-11-29T10:00:00Z'));
    expect(loadedSince([], true)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('pickWallets', () => {
  const wallet = (id: string, pendingApprovals = 0, frozen = false) => ({ id, pendingApprovals, frozen });

  it('waiting payments first (most first), then frozen, then the server’s order; at most max', () => {
    const wallets = [wallet('a'), wallet('b', 0, true), wallet('c', 1), wallet('d'), wallet('e', 3)];
    expect(pickWallets(wallets, 10).map((w) => w.id)).toEqual(['e', 'c', 'b', 'a', 'd']);
    expect(pickWallets(wallets, 2).map((w) => w.id)).toEqual(['e', 'c']);
  });

  it('bounds a hundred wallets to the default few', () => {
    const many = Array.from({ length: 100 }, (_, index) => wallet(`w${index}`));
    expect(pickWallets(many)).toHaveLength(6);
    expect(pickWallets(many)[0]?.id).toBe('w0');
  });
});

describe('latestPayments', () => {
  it('merges wallets, newest first, payments and paid APIs only, at most max', () => {
    const a = [
      tx({ walletId: 'a', createdAt: '2026-12-01T10:00:00.000Z' }),
      tx({ walletId: 'a', type: 'fund', createdAt: '2026-12-01T11:00:00.000Z' }),
      tx({ walletId: 'a', createdAt: '2026-12-01T07:00:00.000Z' }),
    ];
    const b = [
      tx({ walletId: 'b', type: 'x402', createdAt: '2026-12-01T09:00:00.000Z' }),
      tx({ walletId: 'b', status: 'rejected', createdAt: '2026-12-01T08:00:00.000Z' }),
    ];
    const latest = latestPayments([a, b], 3);
    expect(latest.map((t) => [t.walletId, t.createdAt.slice(11, 13)])).toEqual([
      ['a', '10'],
      ['b', '09'],
      ['b', '08'],
    ]);
    expect(latestPayments([], 3)).toEqual([]);
  });

  it('the same instant: the later id first', () => {
    const same = '2026-12-01T10:00:00.000Z';
    const first = tx({ createdAt: same });
    const second = tx({ createdAt: same });
    expect(latestPayments([[first], [second]]).map((t) => t.id)).toEqual([second.id, first.id]);
  });
});

describe('capBars with only the newest transactions loaded', () => {
  const wallet = { dailyCapRemaining: null, totalCapRemaining: null } as AgentWallet;
  const policy = (type: string, params: Record<string, unknown>) =>
    ({
      id: `pol_${type}`,
      walletId: 'w',
      type,
      params,
      active: true,
      createdAt: '',
      updatedAt: '',
    }) as unknown as Policy;
  const now = utc('2026-12-01T09:00:00Z');
  const txs = [tx({ amount: '4.000000', createdAt: '2026-12-01T08:00:00.000Z' })];
  const policies = [
    policy('spend_cap_window', { limit: '50.000000', window: '7d' }),
    policy('spend_cap_period', { limit: '10.000000', period: 'day', timezone: 'UTC' }),
  ];

  it('a window reaching past the oldest loaded says "at least"; one within it stays exact', () => {
    const [week, day] = capBars(wallet, policies, txs, now, utc('2026-11-30T12:00:00Z'));
    expect(week).toMatchObject({ used: 4_000_000n, status: 'at-least' });
    expect(capText(week!)).toBe('At least 4.00 of 50.00 USDC used · at most 46.00 USDC left');
    expect(day).toMatchObject({ used: 4_000_000n, status: 'known' });
  });

  it('everything loaded (the default): exact, as before', () => {
    expect(capBars(wallet, policies, txs, now).map((bar) => bar.status)).toEqual(['known', 'known']);
  });
});
