// What check_balance answers, read in one query (for one wallet or many): the wallet, both balances, the active
// caps and — only when a daily cap exists — the last 24 hours' spending (CASE evaluates the sum only then). Agents
// poll this; measured, Kysely building and running the four queries it used to take was half of its CPU.
import { sql } from 'kysely';
import { type Clock, isoFromMs } from '../../clock.ts';
import { ACCOUNT_SUFFIX } from '../../domain/money/accounts.ts';
import { periodKey } from '../../domain/money/batch-state.ts';
import { formatMicros } from '../../domain/money.ts';
import {
  type ActivePolicy,
  capsRemaining,
  DAY_MS,
  periodCapRemaining,
} from '../../domain/policies/policies.ts';
import { assert } from '../../errors.ts';
import type { Dialect, Store } from '../../store/db.ts';
import { isConnectionFailure } from '../../store/errors.ts';
import { windowSpentSql } from '../money/spending-windows.ts';
import { spentInPeriods, windowNeeds } from '../money/window-totals.ts';
import { activePoliciesJsonSql, type PoliciesJson, policiesFromJson } from '../policies/policies.ts';
import { createReadBatch } from './read-batch.ts';

export interface BalanceView {
  walletId: string;
  /** Lower-case. */
  address: string;
  frozen: boolean;
  availableMicros: bigint;
  heldMicros: bigint;
  dailyCapRemaining: string | null;
  totalCapRemaining: string | null;
  /** The tightest calendar budget (spend_cap_period), when the wallet has one: its room and when it resets. */
  periodCap?: PeriodCapView;
  /** Its daily cap's or calendar budget's room depends on the time of the read: never kept. */
  timeDependent: boolean;
}

export interface PeriodCapView {
  periodCapRemaining: string;
  periodCapResetsAt: string;
}

interface BalanceRow {
  id: string;
  address: string;
  frozen_at_ms: bigint | null;
  spent_micros: bigint;
  available_micros: bigint | null;
  held_micros: bigint | null;
  /** [[id, type, params_json], …]: a JSON string on SQLite, parsed already by pg. */
  caps: PoliciesJson;
  last24h_micros: bigint | string | null;
}

/** Wallets whose balance view is kept; past it the oldest goes (agents that poll are few and hot). */
const CACHED_VIEWS_MAX = 10_000;
/** Concurrent reads that are not served from memory go to the database together, this many per query. */
const READ_BATCH = { maxKeys: 64, maxInFlight: 4, maxWaiting: 1_024, isUnreachable: isConnectionFailure };

export interface BalanceViews {
  read(walletId: string): Promise<BalanceView | undefined>;
}

/**
 * check_balance's reads, answered from memory while nothing in the database can have changed: an entry holds
 * the store's committedVersion at its read, and any statement that can write (this process) or a commit by
 * another process moves it, so a hit is exactly what the query would return. A view with a daily cap is never
 * kept: its 24-hour sum changes as time passes. Concurrent reads go together (read-batch.ts): on PostgreSQL,
 * which has no such version (other instances write), into one query; on SQLite, under one look at the version
 * (a pread of the wal-index header, measured at 11 % of check_balance's time when taken for every read), taken
 * after every read of the batch was asked, so it is as exact for each of them as a look of its own. Measured on
 * SQLite, the query was half of check_balance's CPU in the server; on PostgreSQL, batching took check_balance
 * from 4,463 to ~9,800 req/s (server CPU 193 → 97 µs and PostgreSQL's 102 → 11 µs per read).
 */
export function createBalanceViews(store: Store, clock: Clock): BalanceViews {
  const cache = new Map<string, { version: string; view: BalanceView }>();
  const query = async (walletIds: readonly string[]) => {
    const compiled = balanceQuery(store.dialect, walletIds, clock.nowMs()).compile(store.db);
    // PostgreSQL, or a transaction is open: Kysely (which waits for the writer).
    return complete(store, viewsOf((await store.db.executeQuery(compiled)).rows), clock.nowMs());
  };
  const load = async (walletIds: readonly string[]) => {
    const version = store.committedVersion();
    if (version === null) return query(walletIds);
    const views = new Map<string, BalanceView>();
    const missed: string[] = [];
    for (const id of walletIds) {
      const hit = cache.get(id);
      if (hit !== undefined && hit.version === version) views.set(id, hit.view);
      else missed.push(id);
    }
    if (missed.length === 0) return views;
    // No transaction is open, so the read runs at once, under this very version.
    const rows = store.readNow(balanceQuery(store.dialect, missed, clock.nowMs()).compile(store.db));
    assert(rows !== null, 'a read with no transaction open runs at once');
    const partials = viewsOf(rows);
    const finished = needsPeriodCaps(partials)
      ? await withPeriodCaps(store, partials, clock.nowMs())
      : plainViews(partials);
    for (const [id, view] of finished) {
      views.set(id, view);
      if (view.timeDependent) continue;
      if (cache.size >= CACHED_VIEWS_MAX && !cache.has(id)) cache.delete(cache.keys().next().value!);
      cache.set(id, { version, view });
    }
    return views;
  };
  return { read: createReadBatch(load, READ_BATCH) };
}

/** A view before its calendar budgets' room is known, with the policies that name them. */
type PartialView = { view: BalanceView; periodCaps: ActivePolicy[] };

function viewsOf(rows: readonly BalanceRow[]): Map<string, PartialView> {
  return new Map(rows.map((row) => [row.id, balanceViewOf(row)]));
}

/** Most reads have no calendar budget at all: then nothing more is read, built or awaited. */
function needsPeriodCaps(partials: Map<string, PartialView>): boolean {
  for (const { periodCaps } of partials.values()) if (periodCaps.length > 0) return true;
  return false;
}

function plainViews(partials: Map<string, PartialView>): Map<string, BalanceView> {
  return new Map([...partials].map(([id, { view }]) => [id, view]));
}

async function complete(store: Store, partials: Map<string, PartialView>, nowMs: number) {
  return needsPeriodCaps(partials) ? withPeriodCaps(store, partials, nowMs) : plainViews(partials);
}

/**
 * The calendar budgets' room: one query per distinct period and zone among the views that have such a cap
 * (wallets without one cost nothing more), summed since the period's start as the ledger batch sums it.
 */
async function withPeriodCaps(
  store: Store,
  partials: Map<string, PartialView>,
  nowMs: number,
): Promise<Map<string, BalanceView>> {
  const views = new Map<string, BalanceView>();
  const policiesByWallet = new Map([...partials].map(([id, { periodCaps }]) => [id, periodCaps]));
  const spent = await spentInPeriods(store.db, windowNeeds(policiesByWallet).periods, nowMs);
  for (const [id, { view, periodCaps }] of partials) {
    const room = periodCapRemaining(periodCaps, nowMs, (period, timezone) => {
      const totals = spent.get(periodKey(period, timezone));
      assert(totals !== undefined, `spending this ${period} in ${timezone} was read`);
      return totals.get(id) ?? 0n;
    });
    views.set(id, room === null ? view : { ...view, periodCap: periodCapView(room) });
  }
  return views;
}

/** The tightest calendar budget as check_balance and check_payment show it. */
export function periodCapView(room: { remainingMicros: bigint; resetsAtMs: number }): PeriodCapView {
  return {
    periodCapRemaining: formatMicros(room.remainingMicros),
    periodCapResetsAt: isoFromMs(room.resetsAtMs),
  };
}

/** The policies check_balance reports the room of. */
const CAP_TYPES = ['spend_cap_daily', 'spend_cap_total', 'spend_cap_period'] as const;

function balanceQuery(dialect: Dialect, walletIds: readonly string[], nowMs: number) {
  // One parameter whatever the number of wallets, so the statement's text (and its prepared plan) is one.
  const wanted =
    dialect === 'postgres'
      ? sql`w.id = any(${[...walletIds]}::text[])`
      : sql`w.id in (select value from json_each(${JSON.stringify(walletIds)}))`;
  // Scalar subqueries rather than joins: measured on SQLite, a join of the same primary-key lookups cost twice
  // as much. The caps' JSON and the 24-hour sum are built only when such a policy exists.
  const capsExist = sql`exists (select 1 from policies p where p.wallet_id = w.id and p.active = 1
    and p.type in (${sql.join(CAP_TYPES.map((type) => sql.lit(type)))}))`;
  return sql<BalanceRow>`
    select w.id, w.address, w.frozen_at_ms, w.spent_micros,
      (select balance_micros from accounts where id = w.id || ${ACCOUNT_SUFFIX.available}) as available_micros,
      (select balance_micros from accounts where id = w.id || ${ACCOUNT_SUFFIX.hold}) as held_micros,
      case when ${capsExist} then ${activePoliciesJsonSql(dialect, sql`w.id`, CAP_TYPES)} end as caps,
      case when exists (select 1 from policies p
          where p.wallet_id = w.id and p.active = 1 and p.type = 'spend_cap_daily')
        then ${windowSpentSql(sql`w.id`, DAY_MS, nowMs)}
      end as last24h_micros
    from wallets w
    where ${wanted}`;
}

function balanceViewOf(row: BalanceRow): PartialView {
  const heldMicros = row.held_micros ?? 0n;
  assert(row.available_micros !== null, `wallet ${row.id} has no available account`);
  // The pair of the write-side guard: balances read back are never negative.
  assert(row.available_micros >= 0n && heldMicros >= 0n, `wallet ${row.id} has a negative balance`);
  assert(row.spent_micros >= 0n, `wallet ${row.id} has a negative spent total`);
  const policies = policiesFromJson(row.caps);
  const periodCaps = policies.filter((policy) => policy.rule.type === 'spend_cap_period');
  const caps = capsRemaining(policies, {
    last24hMicros: row.last24h_micros === null ? 0n : BigInt(row.last24h_micros),
    allTimeMicros: row.spent_micros,
  });
  const view = {
    walletId: row.id,
    address: row.address,
    frozen: row.frozen_at_ms !== null,
    availableMicros: row.available_micros,
    heldMicros,
    dailyCapRemaining: caps.dailyCapRemaining === null ? null : formatMicros(caps.dailyCapRemaining),
    totalCapRemaining: caps.totalCapRemaining === null ? null : formatMicros(caps.totalCapRemaining),
    timeDependent: row.last24h_micros !== null || periodCaps.length > 0,
  };
  return { view, periodCaps };
}
