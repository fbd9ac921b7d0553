// A wallet's spending in its rolling windows, kept rather than summed (migration 0010): a row per wallet and
// window length holds the sum and count of its counted payments created after through_ms - span_ms. A batch
// takes the rows of its agent wallets, moves each to its own time by summing only the payments that crossed the
// window's start since (each payment crosses once, so this costs what the batch's own payments cost, whatever
// the wallet's history), adds its own payments and the changes of status it made, and writes the rows back in
// one statement. Where a policy needs a window that has no row yet, one sum over the window makes it. The rows
// come with the batch's balance read (store/kept-windows.ts). Every row of a batch's agent wallets is kept
// moving, needed or not, so a policy removed and added again never finds a row that missed payments. The wallet rows are locked first (PostgreSQL), so the absolute values written
// back cannot lose a concurrent change: a change of status outside a batch (setTransactionStatus) locks the same
// wallet row before it moves the windows.
import { CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely';
import type { BatchEffects } from '../../domain/money/batch-state.ts';
import { type ActivePolicy, DAY_MS, WINDOWS } from '../../domain/policies/policies.ts';
import { assert } from '../../errors.ts';
import type { Dialect } from '../../store/db.ts';
import { type KeptWindowsJson, parseKeptWindows } from '../../store/kept-windows.ts';
import type { Database, SpendingWindowsTable } from '../../store/schema.ts';
import { valuesTable } from '../../store/values-table.ts';
import { insertRows, type WriteStep } from '../../store/write-plan.ts';
import { countsAsSpending, SPENDING_STATUSES } from '../wallets/transactions.ts';

export interface WindowTotal {
  spentMicros: bigint;
  payments: number;
}

/** wallet id → span (ms) → its totals at the batch's time. */
export type SpendingWindows = Map<string, Map<number, WindowTotal>>;

/** Pure: the window lengths a wallet's policies check (the daily cap is a 24-hour window). */
export function spansOf(policies: readonly ActivePolicy[]): Set<number> {
  const spans = new Set<number>();
  for (const { rule } of policies) {
    if (rule.type === 'spend_cap_daily') spans.add(DAY_MS);
    if (rule.type === 'spend_cap_window' || rule.type === 'tx_count_cap') spans.add(WINDOWS[rule.window]);
  }
  return spans;
}

/**
 * Pure: the payments a row kept through `throughMs` must take off (sign -1: they left the window) or put back
 * (sign +1: a clock behind the row's, another instance's) to stand at `nowMs` — those created in (loMs, hiMs].
 */
export function shiftOf(
  row: { spanMs: number; throughMs: number },
  nowMs: number,
): { loMs: number; hiMs: number; sign: -1 | 1 } | null {
  if (nowMs === row.throughMs) return null;
  const [from, to] = nowMs > row.throughMs ? [row.throughMs, nowMs] : [nowMs, row.throughMs];
  return { loMs: from - row.spanMs, hiMs: to - row.spanMs, sign: nowMs > row.throughMs ? -1 : 1 };
}

/**
 * The totals at `nowMs` of every kept window of the batch's agent wallets (read with their rows, see
 * store/kept-windows.ts), and of each window `needed` names that has no row yet. Two statements at most: what
 * crossed the kept windows' starts, the sums of new windows.
 */
export async function loadSpendingWindows(
  trx: Kysely<Database>,
  input: {
    kept: ReadonlyArray<{ walletId: string; json: KeptWindowsJson }>;
    needed: ReadonlyMap<string, ReadonlySet<number>>;
    nowMs: number;
  },
  dialect: Dialect,
): Promise<SpendingWindows> {
  const windows: SpendingWindows = new Map();
  const shifts: Array<{ walletId: string; spanMs: number; loMs: number; hiMs: number; sign: -1 | 1 }> = [];
  for (const { walletId, json } of input.kept) {
    for (const row of parseKeptWindows(json)) {
      // The pair of the table's CHECK: totals read back are never negative.
      assert(row.spentMicros >= 0n && row.payments >= 0, `a spending window of ${walletId} is negative`);
      totalsOf(windows, walletId).set(row.spanMs, { spentMicros: row.spentMicros, payments: row.payments });
      const shift = shiftOf(row, input.nowMs);
      if (shift !== null) shifts.push({ walletId, spanMs: row.spanMs, ...shift });
    }
  }
  for (const moved of await crossed(trx, shifts, dialect)) {
    const total = windows.get(moved.walletId)!.get(moved.spanMs)!;
    total.spentMicros += BigInt(moved.sign) * moved.spentMicros;
    total.payments += moved.sign * moved.payments;
    assert(
      total.spentMicros >= 0n && total.payments >= 0,
      `a spending window of ${moved.walletId} went negative`,
    );
  }
  await sumNewWindows(trx, windows, input);
  return windows;
}

function totalsOf(windows: SpendingWindows, walletId: string): Map<number, WindowTotal> {
  return windows.get(walletId) ?? windows.set(walletId, new Map()).get(walletId)!;
}

const COUNTED = sql`t.type = 'payment' and t.status in (${sql.join(SPENDING_STATUSES.map((status) => sql.lit(status)))})`;

const RANGES = [
  ['wallet_id', 'text'],
  ['span_ms', 'bigint'],
  ['lo_ms', 'bigint'],
  ['hi_ms', 'bigint'],
] as const;

/** The counted payments created in each shift's range, summed per wallet and span: one statement. */
async function crossed(
  trx: Kysely<Database>,
  shifts: ReadonlyArray<{ walletId: string; spanMs: number; loMs: number; hiMs: number; sign: -1 | 1 }>,
  dialect: Dialect,
) {
  if (shifts.length === 0) return [];
  const tuples = shifts.map((s) => [s.walletId, BigInt(s.spanMs), BigInt(s.loMs), BigInt(s.hiMs)] as const);
  const result = await sql<{
    wallet_id: string;
    span_ms: bigint;
    total: bigint | string;
    n: bigint | string;
  }>`
    select v.wallet_id, v.span_ms, sum(t.amount_micros) as total, count(*) as n
    from ${valuesTable(tuples, RANGES, dialect)}
    join transactions t on t.wallet_id = v.wallet_id and t.created_at_ms > v.lo_ms and t.created_at_ms <= v.hi_ms
    where ${COUNTED}
    group by v.wallet_id, v.span_ms`.execute(trx);
  const signs = new Map(shifts.map((s) => [`${s.walletId}\n${s.spanMs}`, s.sign]));
  return result.rows.map((r) => ({
    walletId: r.wallet_id,
    spanMs: Number(r.span_ms),
    sign: signs.get(`${r.wallet_id}\n${Number(r.span_ms)}`)!,
    spentMicros: BigInt(r.total),
    payments: Number(r.n),
  }));
}

/** Windows a policy needs and no row keeps yet: one sum over each length's window, for all its wallets. */
async function sumNewWindows(
  trx: Kysely<Database>,
  windows: SpendingWindows,
  input: { needed: ReadonlyMap<string, ReadonlySet<number>>; nowMs: number },
): Promise<void> {
  const walletsBySpan = new Map<number, string[]>();
  for (const [walletId, spans] of input.needed) {
    for (const spanMs of spans) {
      if (windows.get(walletId)?.has(spanMs)) continue;
      walletsBySpan.set(spanMs, [...(walletsBySpan.get(spanMs) ?? []), walletId]);
      totalsOf(windows, walletId).set(spanMs, { spentMicros: 0n, payments: 0 });
    }
  }
  for (const [spanMs, walletIds] of walletsBySpan) {
    const rows = await sql<{ wallet_id: string; total: bigint | string; n: bigint | string }>`
      select t.wallet_id, sum(t.amount_micros) as total, count(*) as n from transactions t
      where t.wallet_id in (${sql.join(walletIds)}) and t.created_at_ms > ${BigInt(input.nowMs - spanMs)}
        and ${COUNTED}
      group by t.wallet_id`.execute(trx);
    for (const r of rows.rows) {
      windows.get(r.wallet_id)!.set(spanMs, { spentMicros: BigInt(r.total), payments: Number(r.n) });
    }
  }
}

/** One payment's change to what its wallet has spent: created counting, or counting no more (or again). */
export interface SpendingChange {
  walletId: string;
  /** When the payment was made: which windows it is inside of. */
  createdAtMs: number;
  micros: bigint;
  payments: number;
}

/** Pure: how the batch's new records and status changes move their wallets' spending. */
export function spendingChanges(effects: BatchEffects): SpendingChange[] {
  const changes: SpendingChange[] = [];
  for (const r of effects.records) {
    if (countsAsSpending(r.type, r.status))
      changes.push({ walletId: r.walletId, createdAtMs: r.nowMs, micros: r.amountMicros, payments: 1 });
  }
  for (const { before, after } of effects.transitions) {
    const payments =
      Number(countsAsSpending(after.type, after.status)) -
      Number(countsAsSpending(before.type, before.status));
    if (payments === 0) continue;
    const micros = BigInt(payments) * after.amount_micros;
    changes.push({ walletId: after.wallet_id, createdAtMs: Number(after.created_at_ms), micros, payments });
  }
  return changes;
}

/**
 * Pure: each window at `nowMs` after the batch — its payments added, the changes of status it made applied
 * where the payment is inside the window — as the rows to write.
 */
export function windowsAfter(windows: SpendingWindows, effects: BatchEffects, nowMs: number) {
  const changesByWallet = new Map<string, SpendingChange[]>();
  for (const change of spendingChanges(effects)) {
    changesByWallet.set(change.walletId, [...(changesByWallet.get(change.walletId) ?? []), change]);
  }
  const rows: SpendingWindowsTable[] = [];
  for (const [walletId, spans] of windows) {
    for (const [spanMs, total] of spans) {
      let spentMicros = total.spentMicros;
      let payments = total.payments;
      for (const change of changesByWallet.get(walletId) ?? []) {
        if (change.createdAtMs <= nowMs - spanMs) continue;
        spentMicros += change.micros;
        payments += change.payments;
      }
      // The pair of the table's CHECK, before the write.
      assert(spentMicros >= 0n && payments >= 0, `a spending window of ${walletId} would go negative`);
      rows.push({
        wallet_id: walletId,
        span_ms: BigInt(spanMs),
        through_ms: BigInt(nowMs),
        spent_micros: spentMicros,
        payments: BigInt(payments),
      });
    }
  }
  return rows;
}

/** The batch's windows written back, one statement (an upsert: new windows are inserted). */
export function spendingWindowsStep(
  windows: SpendingWindows,
  effects: BatchEffects,
  nowMs: number,
  dialect: Dialect,
): WriteStep | undefined {
  const rows = windowsAfter(windows, effects, nowMs);
  if (rows.length === 0) return undefined;
  const insert = insertRows(dialect, 'spending_windows', rows);
  const query = CompiledQuery.raw(
    `${insert.sql} on conflict (wallet_id, span_ms) do update set through_ms = excluded.through_ms,
      spent_micros = excluded.spent_micros, payments = excluded.payments`,
    [...insert.parameters],
  );
  return { what: 'spending windows', query };
}

/**
 * SQL for a wallet's counted spending in the `spanMs` before `nowMs`, for reads (check_balance, wallet views):
 * from its kept window, less what has left the window since the row's time; summed over the window when the
 * wallet keeps none (or keeps one ahead of this clock).
 */
export function windowSpentSql(
  walletId: RawBuilder<unknown>,
  spanMs: number,
  nowMs: number,
): RawBuilder<unknown> {
  const startMs = BigInt(nowMs - spanMs);
  return sql`coalesce(
    (select sw.spent_micros - coalesce((select sum(t.amount_micros) from transactions t
        where t.wallet_id = sw.wallet_id and t.created_at_ms > sw.through_ms - sw.span_ms
          and t.created_at_ms <= ${startMs} and ${COUNTED}), 0)
      from spending_windows sw
      where sw.wallet_id = ${walletId} and sw.span_ms = ${BigInt(spanMs)} and sw.through_ms <= ${BigInt(nowMs)}),
    (select coalesce(sum(t.amount_micros), 0) from transactions t
      where t.wallet_id = ${walletId} and t.created_at_ms > ${startMs} and ${COUNTED}))`;
}
