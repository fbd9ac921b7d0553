// What a wallet's activity shows as pictures, shaped from its transactions: spending per day for the chart
// (stacked by what happened to it) and how much of each cap is used. Amounts stay BigInt micro-units; the chart
// gets whole micro-units (exact integers), never decimal floats. Pure: unit-tested.
import type { AgentWallet, Policy, Transaction } from '@agent-wallet/sdk';
import { isPeriod, PERIOD_ADJECTIVE, type Period, periodBounds } from './calendarPeriod.ts';
import { formatAmount, fromMicros, groupThousands, smallest, toMicros } from './money.ts';
import {
  describePolicyParams,
  isWindow,
  paymentCount,
  policyTitle,
  WINDOW_WORDS,
} from './views/policyInfo.ts';

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

/**
 * How well a bar's "used" is known: 'known' (counted, or the limit less the server's remaining room); 'reached'
 * (no room left: the cap is used up, by how much past it the server does not say); 'at-least' (a tighter cap of
 * the same kind is reached, so this one is used at least that far; or the transactions loaded do not reach back
 * to the start of its window).
 */
export type CapStatus = 'known' | 'reached' | 'at-least';

export interface CapBar {
  policyId: string;
  /** "Daily cap", "7-day budget", "Total cap", "Payments per 24 hours". */
  title: string;
  /** Used and limit: micro-units for amounts, counts for tx_count_cap. */
  used: bigint;
  limit: bigint;
  unit: 'usdc' | 'payments';
  status: CapStatus;
  /** A calendar budget (spend_cap_period): its period and when it resets (epoch ms, the period's end). */
  resets?: { period: Period; atMs: number };
}

/** A cap shown in words only: it counts per recipient, so no one bar tells how much of it is used. */
export interface CapNote {
  policyId: string;
  title: string;
  /** "At most 50.00 USDC to any one recipient per 24 hours". */
  text: string;
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

/**
 * Use of one cap of a kind the wallet reports its remaining room for (the room under the tightest cap of that
 * kind; every cap of the kind counts the same spending). Without that room, `counted` (what the transactions
 * loaded show) stands.
 */
export function capUse(
  limit: bigint,
  limits: readonly bigint[],
  remaining: string | null,
  counted: bigint,
): Pick<CapBar, 'used' | 'status'> {
  if (remaining === null || limits.length === 0) return { used: counted, status: 'known' };
  const room = toMicros(remaining);
  const tightest = smallest(limits);
  if (room > 0n) return { used: tightest > room ? tightest - room : 0n, status: 'known' };
  if (limit <= tightest) return { used: limit, status: 'reached' };
  return { used: counted > tightest ? counted : tightest, status: 'at-least' };
}

interface Window {
  ms: number;
  words: (typeof WINDOW_WORDS)[keyof typeof WINDOW_WORDS];
}

function windowOf(policy: Policy): Window | null {
  const name = (policy.params as { window?: unknown }).window;
  if (typeof name !== 'string' || !(name in WINDOW_MS) || !(name in WINDOW_WORDS)) return null;
  return { ms: WINDOW_MS[name]!, words: WINDOW_WORDS[name as keyof typeof WINDOW_WORDS] };
}

type CapWallet = Pick<AgentWallet, 'dailyCapRemaining' | 'totalCapRemaining'>;

/** The bar of one active policy, or null when it is no cap with a bar (or its parameters are unreadable). */
function capBarOf(
  policy: Policy,
  wallet: CapWallet,
  active: readonly Policy[],
  transactions: readonly Transaction[],
  now: number,
  loadedSinceMs: number,
): CapBar | null {
  const limit = amountParam(policy.params, 'limit');
  const window = windowOf(policy);
  const bar = { policyId: policy.id, unit: 'usdc' as const };
  const limitsOf = (type: string) =>
    active.filter((p) => p.type === type).map((p) => amountParam(p.params, 'limit') ?? 0n);
  if (policy.type === 'spend_cap_daily' && limit !== null) {
    const counted = spentSince(transactions, now - DAY_MS).micros;
    const use = capUse(limit, limitsOf(policy.type), wallet.dailyCapRemaining, counted);
    return { ...bar, title: 'Daily cap (24 hours)', limit, ...use };
  }
  if (policy.type === 'spend_cap_total' && limit !== null) {
    const use = capUse(limit, limitsOf(policy.type), wallet.totalCapRemaining, 0n);
    return { ...bar, title: 'Total cap', limit, ...use };
  }
  if (policy.type === 'spend_cap_window' && limit !== null && window !== null) {
    const used = spentSince(transactions, now - window.ms).micros;
    const status = countedStatus(now - window.ms, loadedSinceMs);
    return { ...bar, title: `${capitalized(window.words.adjective)} budget`, limit, used, status };
  }
  if (policy.type === 'spend_cap_period' && limit !== null) {
    const { period, timezone } = policy.params as { period?: unknown; timezone?: unknown };
    if (!isPeriod(period) || typeof timezone !== 'string') return null;
    const bounds = periodBounds(now, period, timezone);
    if (bounds === null) return null;
    const used = spentSince(transactions, bounds.startMs).micros;
    const title = `${PERIOD_ADJECTIVE[period]} budget (${timezone})`;
    const status = countedStatus(bounds.startMs, loadedSinceMs);
    return { ...bar, title, limit, used, status, resets: { period, atMs: bounds.endMs } };
  }
  const count = (policy.params as { count?: unknown }).count;
  if (policy.type === 'tx_count_cap' && window !== null && typeof count === 'number') {
    const used = BigInt(spentSince(transactions, now - window.ms).count);
    const title = `Payments per ${window.words.span}`;
    const status = countedStatus(now - window.ms, loadedSinceMs);
    return { ...bar, title, unit: 'payments', limit: BigInt(count), used, status };
  }
  return null;
}

/**
 * A bar counted from the transactions loaded is exact only when they reach back to the start of its window; when
 * older ones were not loaded (a page that does not go back that far), what was counted is a floor.
 */
function countedStatus(windowStartMs: number, loadedSinceMs: number): CapStatus {
  return windowStartMs < loadedSinceMs ? 'at-least' : 'known';
}

/**
 * How much of each active cap is used: the daily and total caps from the wallet's own remaining room (exact, or
 * "reached" when none is left), each windowed budget and payment count from the transactions loaded.
 * `loadedSinceMs`: the transactions are complete from this instant on (-Infinity: all of them are loaded); a
 * window reaching further back is shown "at least".
 */
export function capBars(
  wallet: CapWallet,
  policies: readonly Policy[],
  transactions: readonly Transaction[],
  now: number,
  loadedSinceMs = Number.NEGATIVE_INFINITY,
): CapBar[] {
  const active = policies.filter((policy) => policy.active);
  const bars: CapBar[] = [];
  for (const policy of active) {
    const bar = capBarOf(policy, wallet, active, transactions, now, loadedSinceMs);
    if (bar !== null) bars.push(bar);
  }
  return bars;
}

/**
 * The active caps per recipient (they have no single bar) and the breakers (auto_freeze), in words, caps first.
 */
export function capNotes(policies: readonly Policy[]): CapNote[] {
  const active = policies.filter((policy) => policy.active);
  const caps = active
    .filter((policy) => policy.type === 'recipient_cap')
    .map((policy) => ({
      policyId: policy.id,
      title: policyTitle(policy.type),
      text: describePolicyParams(policy.type, policy.params),
    }));
  const breakers = active
    .filter((policy) => policy.type === 'auto_freeze')
    .map((policy) => ({ policyId: policy.id, title: 'Breaker', text: breakerText(policy.params) }));
  return [...caps, ...breakers];
}

/** An auto_freeze policy in words: "Freezes after 3 denied payments in 1 hour". */
export function breakerText(params: object): string {
  const { denials, window } = params as { denials?: unknown; window?: unknown };
  const count = typeof denials === 'number' ? denials : Number(denials);
  const payments = Number.isFinite(count)
    ? paymentCount(count).replace('payment', 'denied payment')
    : 'repeated denied payments';
  const span = isWindow(window) ? ` in ${WINDOW_WORDS[window].span}` : '';
  return `Freezes after ${payments}${span}`;
}

function capitalized(text: string): string {
  return text === '' ? text : text[0]!.toUpperCase() + text.slice(1);
}

/** Percentage of a bar filled, 0–100 (over the cap, or reached, shows full). */
export function percentUsed(bar: Pick<CapBar, 'used' | 'limit'>): number {
  if (bar.limit <= 0n) return 100;
  const tenths = (bar.used * 1000n) / bar.limit;
  return Math.min(100, Number(tenths) / 10);
}

function capAmount(bar: Pick<CapBar, 'unit'>, value: bigint): string {
  return bar.unit === 'payments' ? paymentCount(Number(value)) : `${formatAmount(fromMicros(value))} USDC`;
}

/**
 * A bar in words: "30.00 of 100.00 USDC used · 70.00 USDC left"; a cap used up whose exact spend is unknown,
 * "Reached: all 500.00 USDC used · nothing left"; one used at least so far, "At least … · at most … left".
 */
export function capText(bar: Pick<CapBar, 'used' | 'limit' | 'unit' | 'status'>): string {
  if (bar.status === 'reached') return `Reached: all ${capAmount(bar, bar.limit)} used · nothing left`;
  const left = bar.limit > bar.used ? bar.limit - bar.used : 0n;
  const used =
    bar.unit === 'payments' ? groupThousands(String(bar.used)) : formatAmount(fromMicros(bar.used));
  if (bar.status === 'at-least')
    return `At least ${used} of ${capAmount(bar, bar.limit)} used · at most ${capAmount(bar, left)} left`;
  return `${used} of ${capAmount(bar, bar.limit)} used · ${capAmount(bar, left)} left`;
}
