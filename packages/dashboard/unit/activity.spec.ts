// The pictures' data: spending per day stacked by status, caps used, the overview's daily use and sort, the
// transaction filters, and the CSV export.
import type { AgentWallet, Policy, Transaction } from '@agent-wallet/sdk';
import { describe, expect, it } from 'vitest';
import {
  breakerText,
  capBars,
  capNotes,
  capText,
  capUse,
  dayKey,
  microsText,
  percentUsed,
  spendByDay,
} from '../src/activity.ts';
import { CSV_COLUMNS, csvCell, csvFileName, transactionsCsv } from '../src/csv.ts';
import { filterTransactions } from '../src/views/TransactionsTable.tsx';
import { dailyUse, sortWallets } from '../src/views/walletTable.ts';

/** Local noon of a day `daysAgo` before NOW. */
const NOW = new Date(2026, 4, 31, 18, 0, 0).getTime();
const at = (daysAgo: number, hour = 12) => new Date(2026, 4, 31 - daysAgo, hour).toISOString();

let seq = 0;
function tx(fields: Partial<Transaction>): Transaction {
  seq += 1;
  return {
    id: `tx_${seq}`,
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
    createdAt: at(0),
    updatedAt: at(0),
    ...fields,
  };
}

const policy = (type: string, params: Record<string, unknown>, active = true) =>
  ({
    id: `pol_${type}`,
    walletId: 'w',
    type,
    params,
    active,
    createdAt: '',
    updatedAt: '',
  }) as unknown as Policy;

describe('spending per day', () => {
  const txs = [
    tx({ amount: '5.000000', createdAt: at(0) }),
    tx({ amount: '20.000000', createdAt: at(0, 9) }),
    tx({ amount: '150.000000', status: 'rejected', createdAt: at(0) }),
    tx({ amount: '7.500000', status: 'pending', createdAt: at(3) }),
    tx({ amount: '2.250000', status: 'processing', createdAt: at(3) }),
    tx({ amount: '1.000000', status: 'expired', createdAt: at(29) }),
    tx({ amount: '3.000000', type: 'x402', createdAt: at(10) }),
    tx({ amount: '100.000000', type: 'fund', createdAt: at(1) }),
    tx({ amount: '9.000000', type: 'withdraw', createdAt: at(1) }),
    tx({ amount: '99.000000', createdAt: at(30) }),
  ];
  const chart = spendByDay(txs, NOW);

  it('has 30 local days, oldest first, today last', () => {
    expect(chart.rows).toHaveLength(30);
    expect(chart.rows.at(-1)?.day).toBe(dayKey(new Date(NOW)));
    expect(chart.rows[0]?.day).toBe(dayKey(new Date(2026, 4, 2)));
  });

  it('stacks an agent’s spending by status: funding, withdrawals and older days left out', () => {
    expect(chart.totals).toEqual({
      completed: 28_000_000n,
      waiting: 9_750_000n,
      rejected: 150_000_000n,
      failed: 1_000_000n,
    });
    expect(chart.count).toBe(7);
    const today = chart.rows.at(-1)!;
    expect([today.completed, today.rejected, today.waiting]).toEqual([25_000_000, 150_000_000, 0]);
    expect(chart.rows.at(-4)?.waiting).toBe(9_750_000);
    expect(chart.rows[0]?.failed).toBe(1_000_000);
  });

  it('labels the axis in the amount’s own digits', () => {
    expect(microsText(25_000_000)).toBe('25.000000');
    expect(microsText(1)).toBe('0.000001');
  });
});

describe('caps used', () => {
  const wallet = { dailyCapRemaining: '70.000000', totalCapRemaining: '0.000000' } as AgentWallet;
  const txs = [
    tx({ amount: '30.000000', createdAt: new Date(NOW - 3_600_000 * 2).toISOString() }),
    tx({ amount: '10.000000', status: 'pending', createdAt: new Date(NOW - 60_000).toISOString() }),
    tx({ amount: '50.000000', status: 'rejected', createdAt: new Date(NOW - 60_000).toISOString() }),
    tx({ amount: '5.000000', createdAt: new Date(NOW - 86_400_000 * 3).toISOString() }),
  ];
  const bars = capBars(
    wallet,
    [
      policy('spend_cap_daily', { limit: '100.000000' }),
      policy('spend_cap_total', { limit: '500.000000' }),
      policy('spend_cap_window', { limit: '40.000000', window: '1h' }),
      policy('spend_cap_window', { limit: '60.000000', window: '7d' }, false),
      policy('tx_count_cap', { count: 5, window: '7d' }),
      policy('spend_cap_per_tx', { limit: '10.000000' }),
    ],
    txs,
    NOW,
  );

  it('reads the daily and total caps from the wallet’s remaining room', () => {
    expect(bars.map((b) => b.title)).toEqual([
      'Daily cap (24 hours)',
      'Total cap',
      '1-hour budget',
      'Payments per 7 days',
    ]);
    expect(bars[0]).toMatchObject({ used: 30_000_000n, limit: 100_000_000n });
    expect(bars[0]).toMatchObject({ status: 'known' });
    expect(bars[1]).toMatchObject({ used: 500_000_000n, limit: 500_000_000n, status: 'reached' });
  });

  it('says a used-up total cap is reached, not how much was spent (the server does not say)', () => {
    expect(capText(bars[1]!)).toBe('Reached: all 500.00 USDC used · nothing left');
    expect(percentUsed(bars[1]!)).toBe(100);
    expect(capText(bars[0]!)).toBe('30.00 of 100.00 USDC used · 70.00 USDC left');
    expect(capText(bars[3]!)).toBe('3 of 5 payments used · 2 payments left');
    expect(capText({ used: 5n, limit: 5n, unit: 'payments', status: 'reached' })).toBe(
      'Reached: all 5 payments used · nothing left',
    );
  });

  it('reads one cap of a kind from the room under the tightest, and past it only "at least"', () => {
    // Room left under the tightest (100): every cap of the kind counts the same spending.
    expect(capUse(100n, [100n, 300n], '0.000040', 0n)).toEqual({ used: 60n, status: 'known' });
    expect(capUse(300n, [100n, 300n], '0.000040', 0n)).toEqual({ used: 60n, status: 'known' });
    // None left: the tightest is reached; a looser one is used at least as far.
    expect(capUse(100n, [100n, 300n], '0.000000', 20n)).toEqual({ used: 100n, status: 'reached' });
    expect(capUse(300n, [100n, 300n], '0.000000', 20n)).toEqual({ used: 100n, status: 'at-least' });
    expect(capUse(300n, [100n, 300n], '0.000000', 150n)).toEqual({ used: 150n, status: 'at-least' });
    // No room reported: what the transactions show.
    expect(capUse(100n, [100n], null, 42n)).toEqual({ used: 42n, status: 'known' });
    // More room than the cap (a stale policy list): nothing used, never negative.
    expect(capUse(100n, [100n], '0.000500', 0n)).toEqual({ used: 0n, status: 'known' });
    expect(capText({ used: 100_000_000n, limit: 300_000_000n, unit: 'usdc', status: 'at-least' })).toBe(
      'At least 100.00 of 300.00 USDC used · at most 200.00 USDC left',
    );
  });

  it('marks every total cap of a wallet with no room left: the tightest reached, the others at least', () => {
    const two = capBars(
      { dailyCapRemaining: null, totalCapRemaining: '0.000000' },
      [
        policy('spend_cap_total', { limit: '800.000000' }),
        policy('spend_cap_total', { limit: '500.000000' }),
      ],
      [],
      NOW,
    );
    expect(two.map((bar) => [bar.status, bar.used])).toEqual([
      ['at-least', 500_000_000n],
      ['reached', 500_000_000n],
    ]);
  });

  it('lists a cap per recipient in words, with no bar', () => {
    const policies = [
      policy('recipient_cap', { limit: '50.000000', window: '24h' }),
      policy('recipient_cap', { limit: '10.000000', window: '1h' }, false),
      policy('spend_cap_per_tx', { limit: '10.000000' }),
    ];
    expect(capBars(wallet, policies, txs, NOW)).toEqual([]);
    expect(capNotes(policies)).toEqual([
      {
        policyId: policies[0]!.id,
        title: 'Cap per recipient',
        text: 'At most 50.00 USDC to any one recipient per 24 hours',
      },
    ]);
  });

  it('counts held and paid spending in each window, not rejected', () => {
    expect(bars[2]).toMatchObject({ used: 10_000_000n, limit: 40_000_000n });
    expect(bars[3]).toMatchObject({ used: 3n, limit: 5n, unit: 'payments' });
  });

  it('fills a bar to at most 100 %', () => {
    expect(percentUsed({ used: 25n, limit: 100n })).toBe(25);
    expect(percentUsed({ used: 1n, limit: 3n })).toBe(33.3);
    expect(percentUsed({ used: 300n, limit: 100n })).toBe(100);
  });
});

describe('the overview table', () => {
  const w = (
    id: string,
    label: string,
    balance: string,
    dailyCapRemaining: string | null,
    pendingApprovals = 0,
  ) => ({ id, label, balance, dailyCapRemaining, pendingApprovals }) as AgentWallet;

  it('says today’s use of the tightest daily cap', () => {
    const use = dailyUse(w('a', 'A', '1', '25.000000'), [
      policy('spend_cap_daily', { limit: '100.000000' }),
      policy('spend_cap_daily', { limit: '200.000000' }),
    ]);
    expect(use).toMatchObject({
      kind: 'cap',
      used: 75_000_000n,
      percent: 75,
      usedText: '75.00',
      limitText: '100.00 USDC',
    });
    expect(dailyUse(w('a', 'A', '1', null), [])).toEqual({ kind: 'none' });
    expect(dailyUse(w('a', 'A', '1', '5.000000'), undefined)).toEqual({
      kind: 'remaining',
      remaining: '5.000000',
    });
  });

  it('sorts by name, balance (exactly), today’s use and waiting approvals', () => {
    const wallets = [
      w('1', 'beta', '10.5', null, 2),
      w('2', 'Alpha', '10.499999', '0.000000'),
      w('3', 'gamma', '1000', null, 1),
    ];
    const uses = new Map(
      wallets.map((x) => [x.id, dailyUse(x, [policy('spend_cap_daily', { limit: '1.000000' })])]),
    );
    const ids = (key: Parameters<typeof sortWallets>[2], desc: boolean) =>
      sortWallets(wallets, uses, key, desc).map((x) => x.id);
    expect(ids('name', false)).toEqual(['2', '1', '3']);
    expect(ids('balance', true)).toEqual(['3', '1', '2']);
    expect(ids('today', true)).toEqual(['2', '1', '3']);
    expect(ids('pending', true)).toEqual(['1', '3', '2']);
  });
});

describe('transaction filters and CSV', () => {
  const rows = [
    tx({ id: 'a', createdAt: at(0), memo: '=HYPERLINK("x")' }),
    tx({ id: 'b', status: 'rejected', amount: '150.000000', createdAt: at(2) }),
    tx({ id: 'c', type: 'fund', createdAt: at(5), toAddress: null }),
  ];

  it('filters by status and by local day, inclusive', () => {
    expect(filterTransactions(rows, { status: 'rejected', from: '', to: '' }).map((t) => t.id)).toEqual([
      'b',
    ]);
    const from = dayKey(new Date(Date.parse(at(2))));
    expect(filterTransactions(rows, { status: '', from, to: '' }).map((t) => t.id)).toEqual(['a', 'b']);
    expect(filterTransactions(rows, { status: '', from: '', to: from }).map((t) => t.id)).toEqual(['b', 'c']);
  });

  it('writes one line per row with exact amounts and a direction, and defuses formulas', () => {
    const lines = transactionsCsv(
      rows.map((t) => ({ tx: t, walletName: 'Bot, "prod"' })),
      new Map(),
    ).split('\r\n');
    expect(lines[0]).toBe(CSV_COLUMNS.map((name) => `"${name}"`).join(','));
    expect(lines).toHaveLength(rows.length + 2);
    expect(lines[1]).toContain(`,"Bot, ""prod""","Payment","completed","out","1.000000","USDC",`);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")"`);
    expect(lines[2]).toContain(',"rejected","none","150.000000",');
    expect(lines[3]).toContain(',"Funding","completed","in","1.000000","USDC","From the master wallet",');
  });

  it('keeps the columns in their order and appends how a paid request paid, empty for other transactions', () => {
    expect(CSV_COLUMNS).toEqual([
      'created_at',
      'wallet',
      'type',
      'status',
      'direction',
      'amount',
      'currency',
      'counterparty',
      'to_address',
      'resource',
      'memo',
      'reason',
      'tx_hash',
      'transaction_id',
      'protocol',
      'scheme',
      'authorized_amount',
      'receipt',
    ]);
    const receipt = `eyJzdWNjZXNzIjp0cnVl${'QUJD'.repeat(40)}fQ==`;
    const paid = [
      tx({
        id: 'x',
        type: 'x402',
        resource: 'https://api.example.com/v1/report',
        protocol: 'x402',
        scheme: 'exact',
        authorizedAmount: '0.010000',
        amount: '0.010000',
        receipt,
      }),
      tx({
        id: 'm',
        type: 'x402',
        resource: 'https://mpp.example.com/search',
        protocol: 'mpp',
        scheme: 'charge',
        authorizedAmount: '0.250000',
        amount: '0.250000',
        receipt: null,
      }),
      tx({ id: 'p' }),
    ];
    const cells = (line: string) => line.split('","').map((cell) => cell.replace(/^"|"$/g, ''));
    const lines = transactionsCsv(
      paid.map((t) => ({ tx: t, walletName: 'Bot' })),
      new Map(),
    )
      .split('\r\n')
      .map(cells);
    expect(lines[1]!.slice(-5)).toEqual(['x', 'x402', 'exact', '0.010000', receipt]);
    expect(lines[1]![9]).toBe('https://api.example.com/v1/report');
    expect(lines[2]!.slice(-5)).toEqual(['m', 'mpp', 'charge', '0.250000', '']);
    expect(lines[3]!.slice(-5)).toEqual(['p', '', '', '', '']);
    for (const line of lines.slice(0, 4)) expect(line).toHaveLength(CSV_COLUMNS.length);
  });

  it('quotes and defuses single cells', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('+1')).toBe(`"'+1"`);
    expect(csvCell('@x')).toBe(`"'@x"`);
    expect(csvCell(null)).toBe('""');
    expect(csvFileName('Research bot ✨', new Date('2026-05-12T10:00:00Z'))).toBe(
      'transactions-research-bot-2026-05-12.csv',
    );
  });
});

describe('calendar budgets and the breaker', () => {
  const wallet = { dailyCapRemaining: null, totalCapRemaining: null } as AgentWallet;
  // Tuesday 1 Dec 2026, 10:00 in Berlin (09:00 UTC): the month began there today, the week yesterday.
  const now = Date.parse('2026-12-01T09:00:00Z');
  const txs = [
    tx({ amount: '4.000000', createdAt: '2026-12-01T08:00:00Z' }), // today, this week, this month
    tx({ amount: '2.000000', status: 'pending', createdAt: '2026-11-30T23:30:00Z' }), // 1 Dec 00:30 Berlin
    tx({ amount: '8.000000', createdAt: '2026-11-30T22:30:00Z' }), // 30 Nov 23:30 Berlin: last month
    tx({ amount: '16.000000', createdAt: '2026-11-29T22:30:00Z' }), // Sunday 29 Nov Berlin: last week
    tx({ amount: '50.000000', status: 'rejected', createdAt: '2026-12-01T08:30:00Z' }),
  ];

  it('counts spending since the period’s start in the policy’s timezone, and says when it resets', () => {
    const policies = [
      policy('spend_cap_period', { limit: '100.000000', period: 'month', timezone: 'Europe/Berlin' }),
    ];
    const [month] = capBars(wallet, policies, txs, now);
    expect(month).toMatchObject({
      title: 'Monthly budget (Europe/Berlin)',
      used: 6_000_000n,
      limit: 100_000_000n,
      status: 'known',
      resets: { period: 'month', atMs: Date.parse('2026-12-31T23:00:00Z') },
    });
    // In UTC both late payments of 30 Nov are still November's: only today's 4.00 counts.
    const utc = capBars(
      wallet,
      [policy('spend_cap_period', { limit: '100.000000', period: 'month', timezone: 'UTC' })],
      txs,
      now,
    );
    expect(utc[0]?.used).toBe(4_000_000n);
  });

  it('weeks start on Monday and days at local midnight', () => {
    const week = capBars(
      wallet,
      [policy('spend_cap_period', { limit: '100.000000', period: 'week', timezone: 'Europe/Berlin' })],
      txs,
      now,
    );
    expect(week[0]).toMatchObject({ title: 'Weekly budget (Europe/Berlin)', used: 14_000_000n });
    const day = capBars(
      wallet,
      [policy('spend_cap_period', { limit: '10.000000', period: 'day', timezone: 'Europe/Berlin' })],
      txs,
      now,
    );
    expect(day[0]).toMatchObject({ title: 'Daily budget (Europe/Berlin)', used: 6_000_000n });
  });

  it('leaves out a budget whose timezone the browser does not know', () => {
    const policies = [
      policy('spend_cap_period', { limit: '1.000000', period: 'day', timezone: 'Nowhere/X' }),
    ];
    expect(capBars(wallet, policies, txs, now)).toEqual([]);
  });

  it('lists an active breaker in words after the caps per recipient', () => {
    const policies = [
      policy('auto_freeze', { denials: 3, window: '1h' }),
      policy('recipient_cap', { limit: '50.000000', window: '24h' }),
    ];
    expect(capNotes(policies).map((note) => note.text)).toEqual([
      'At most 50.00 USDC to any one recipient per 24 hours',
      'Freezes after 3 denied payments in 1 hour',
    ]);
    expect(breakerText({ denials: 1, window: '24h' })).toBe('Freezes after 1 denied payment in 24 hours');
    expect(capNotes([policy('auto_freeze', { denials: 3, window: '1h' }, false)])).toEqual([]);
  });
});
