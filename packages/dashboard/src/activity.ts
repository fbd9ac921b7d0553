// What a wallet's activity shows as pictures, shaped from its transactions: spending per day for the chart
// (stacked by what happened to it) and how much of each cap is used. Amounts stay BigInt micro-units; the chart
// gets whole micro-units (exact integers), never decimal floats. Pure: unit-tested.
import type { AgentWallet, Policy, Transaction } from '@agent-wallet/sdk';
import { fromMicros, smallest, toMicros } from './money.ts';
import { WINDOW_WORDS } from './views/policyInfo.ts';

export const CHART_DAYS = 30;
const DAY_MS = 86_400_000;

/** The chart's stacks: what happened to the money an agent tried to spend. */
export const SPEND_SERIES = [
  { key: 'completed', label: 'Paid' },
  { key: 'waiting', label: 'Waiting or sending' },
  { key: 'rejected', label: 'Rejected' },
  { key: 'failed', label: 'Failed or expired' },
] as const;
export type SpendSeries = (typeof SPEND_SERIES)[number]['key'];

export interface DayRow {
  /** Local date, YYYY-MM-DD. */
  day: string;
  /** "12 May". */
  label: string;
  /** Micro-units per series, as exact integers for the chart. */
  completed: number;
  waiting: number;
  rejected: number;
  failed: number;
}

export interface SpendChart {
  rows: DayRow[];
  /** Per series over the whole period, exact. */
  totals: Record<SpendSeries, bigint>;
  /** Payments counted. */
  count: number;
}

/** An agent's own spending (payments and paid HTTP APIs), not the owner's funding or withdrawals. */
export function isSpending(tx: Pick<Transaction, 'type'>): boolean {
  return tx.type === 'payment' || tx.type === 'x402';
}

export function seriesOf(status: string): SpendSeries {
  if (status === 'completed') return 'completed';
  if (status === 'pending' || status === 'processing') return 'waiting';
  if (status === 'rejected') return 'rejected';
  return 'failed';
}

/** The local calendar day of a moment, YYYY-MM-DD. */
export function dayKey(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Start (local midnight) of the first day the chart shows. */
export function chartStart(now: number, days = CHART_DAYS): number {
  const today = new Date(now);
  return new Date(today.getFullYear(), today.getMonth(), today.getDate() - (days - 1)).getTime();
}

/** Spending per local day over the last `days` days (today included), oldest first, stacked by status. */
export function spendByDay(transactions: readonly Transaction[], now: number, days = CHART_DAYS): SpendChart {
  const start = chartStart(now, days);
  const rows: DayRow[] = [];
  const index = new Map<string, DayRow>();
  for (let i = 0; i < days; i += 1) {
    const date = new Date(start);
    date.setDate(date.getDate() + i);
    const row = {
      day: dayKey(date),
      label: dayLabel(date),
      completed: 0,
      waiting: 0,
      rejected: 0,
      failed: 0,
    };
    rows.push(row);
    index.set(row.day, row);
  }
  const totals: Record<SpendSeries, bigint> = { completed: 0n, waiting: 0n, rejected: 0n, failed: 0n };
  let count = 0;
  for (const tx of transactions) {
    const at = Date.parse(tx.createdAt);
    if (!isSpending(tx) || Number.isNaN(at) || at < start || at > now + DAY_MS) continue;
    const row = index.get(dayKey(new Date(at)));
    if (row === undefined) continue;
    const micros = toMicros(tx.amount);
    const series = seriesOf(tx.status);
    row[series] += Number(micros);
    totals[series] += micros;
    count += 1;
  }
  return { rows, totals, count };
}

function dayLabel(date: Date): string {
  return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
}

/** Micro-units on an axis ("12.5" -> "12.50"): whole micro-units in, the amount's decimal text out. */
export function microsText(micros: number): string {
  return fromMicros(BigInt(Math.round(micros)));
}

// ---- Caps ----------------------------------------------------------------------------------------------------

export interface CapBar {
  policyId: string;
  /** "Daily cap", "7-day budget", "Total cap", "Payments per 24 hours". */
  title: string;
  /** Used and limit: micro-units for amounts, counts for tx_count_cap. */
  used: bigint;
  limit: bigint;
  unit: 'usdc' | 'payments';
}

/** Money an agent has committed: paid, on its way, or held for approval (what caps count). */
const COUNTED = new Set(['completed', 'processing', 'pending']);

function spentSince(transactions: readonly Transaction[], since: number): { micros: bigint; count: number } {
  let micros = 0n;
  let count = 0;
  for (const tx of transactions) {
    if (!isSpending(tx) || !COUNTED.has(tx.status) || Date.parse(tx.createdAt) < since) continue;
    micros += toMicros(tx.amount);
    count += 1;
  }
  return { micros, count };
}

const WINDOW_MS: Record<string, number> = {
  '1h': 3_600_000,
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

function amountParam(params: object, name: string): bigint | null {
  const value = (params as Record<string, unknown>)[name];
  return typeof value === 'string' && /^[0-9]+(\.[0-9]{1,6})?$/.test(value) ? toMicros(value) : null;
}

/** Used from the server's remaining room under the tightest cap of a type; null when it cannot tell. */
function usedFromRemaining(limits: bigint[], remaining: string | null): bigint | null {
  if (remaining === null || limits.length === 0) return null;
  const room = toMicros(remaining);
  if (room === 0n) return null;
  const tightest = smallest(limits);
  return tightest - room;
}

/**
 * How much of each active cap is used: the daily and total caps from the wallet's own remaining room (exact),
 * each windowed budget and payment count from the transactions loaded (which cover at least its window).
 */
export function capBars(
  wallet: Pick<AgentWallet, 'dailyCapRemaining' | 'totalCapRemaining'>,
  policies: readonly Policy[],
  transactions: readonly Transaction[],
  now: number,
): CapBar[] {
  const active = policies.filter((policy) => policy.active);
  const limitsOf = (type: string) =>
    active.filter((p) => p.type === type).map((p) => amountParam(p.params, 'limit') ?? 0n);
  const daily = spentSince(transactions, now - DAY_MS).micros;
  const dailyUsed = usedFromRemaining(limitsOf('spend_cap_daily'), wallet.dailyCapRemaining);
  const totalUsed = usedFromRemaining(limitsOf('spend_cap_total'), wallet.totalCapRemaining);
  const bars: CapBar[] = [];
  for (const policy of active) {
    const limit = amountParam(policy.params, 'limit');
    const windowName = (policy.params as { window?: unknown }).window;
    const since = typeof windowName === 'string' ? WINDOW_MS[windowName] : undefined;
    const words =
      typeof windowName === 'string' ? WINDOW_WORDS[windowName as keyof typeof WINDOW_WORDS] : undefined;
    const bar = { policyId: policy.id, unit: 'usdc' as const };
    if (policy.type === 'spend_cap_daily' && limit !== null) {
      bars.push({
        ...bar,
        title: 'Daily cap (24 hours)',
        limit,
        used: dailyUsed ?? maxOf(daily, limit, wallet.dailyCapRemaining),
      });
    } else if (policy.type === 'spend_cap_total' && limit !== null) {
      bars.push({
        ...bar,
        title: 'Total cap',
        limit,
        used: totalUsed ?? (wallet.totalCapRemaining === '0.000000' ? limit : 0n),
      });
    } else if (
      policy.type === 'spend_cap_window' &&
      limit !== null &&
      since !== undefined &&
      words !== undefined
    ) {
      bars.push({
        ...bar,
        title: `${capitalized(words.adjective)} budget`,
        limit,
        used: spentSince(transactions, now - since).micros,
      });
    } else if (policy.type === 'tx_count_cap' && since !== undefined && words !== undefined) {
      const count = (policy.params as { count?: unknown }).count;
      if (typeof count !== 'number') continue;
      bars.push({
        ...bar,
        title: `Payments per ${words.span}`,
        unit: 'payments',
        limit: BigInt(count),
        used: BigInt(spentSince(transactions, now - since).count),
      });
    }
  }
  return bars;
}

/** At the cap (no room left): at least the limit. */
function maxOf(computed: bigint, limit: bigint, remaining: string | null): bigint {
  if (remaining === '0.000000') return computed > limit ? computed : limit;
  return computed;
}

function capitalized(text: string): string {
  return text === '' ? text : text[0]!.toUpperCase() + text.slice(1);
}

/** Percentage of a bar filled, 0–100 (over the cap shows full). */
export function percentUsed(bar: Pick<CapBar, 'used' | 'limit'>): number {
  if (bar.limit <= 0n) return 100;
  const tenths = (bar.used * 1000n) / bar.limit;
  return Math.min(100, Number(tenths) / 10);
}
