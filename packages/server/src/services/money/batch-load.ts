// What a batch of money commands is decided against, read with a few set-based queries after the writer locked
// the batch's wallets: the payments its answers name, its wallets with both balances, kept spending windows,
// active policies and alerts (one statement), its idempotency keys, pending counts, and the window totals its
// policies need. Each command kind says what it names (commands/registry.ts); nothing here is per command.
import { type Kysely, sql } from 'kysely';
import type { AlertState } from '../../domain/alerts/alerts.ts';
import { walletAccountIds } from '../../domain/money/accounts.ts';
import type { BatchCommand } from '../../domain/money/batch.ts';
import { type BatchState, emptyWindows, type WalletState } from '../../domain/money/batch-state.ts';
import { type ActivePolicy, DAY_MS } from '../../domain/policies/policies.ts';
import { assert } from '../../errors.ts';
import type { Dialect } from '../../store/db.ts';
import { type KeptWindowsJson, keptWindowsColumn } from '../../store/kept-windows.ts';
import { notCompleted } from '../../store/partial-index.ts';
import type { Database } from '../../store/schema.ts';
import { type AlertsJson, alertsFromJson, alertsJsonSql } from '../alerts/alerts.ts';
import { activePoliciesJsonSql, type PoliciesJson, policiesFromJson } from '../policies/policies.ts';
import type { WalletRow } from '../wallets/wallet-rows.ts';
import type { LoadedAlerts } from './batch-alerts.ts';
import { loadHeld } from './commands/approval.ts';
import { emptyNamed, type HeldRows } from './commands/module.ts';
import { heldIdOf, nameCommand, paidAddressOf } from './commands/registry.ts';
import { loadStoredKeys } from './idempotency.ts';
import { loadSpendingWindows, type SpendingWindows, spansOf } from './spending-windows.ts';
import { loadWindowTotals } from './window-totals.ts';

export interface LoadedBatch {
  state: BatchState;
  spending: { windows: SpendingWindows; nowMs: number };
  alerts: LoadedAlerts;
}

/** The addresses each paying wallet's commands pay: what recipient caps are loaded for. */
function recipientsOf(commands: readonly BatchCommand[]): Map<string, Set<string>> {
  const byWallet = new Map<string, Set<string>>();
  for (const command of commands) {
    const paid = paidAddressOf(command);
    if (paid === null) continue;
    byWallet.set(paid.walletId, (byWallet.get(paid.walletId) ?? new Set()).add(paid.toAddress));
  }
  return byWallet;
}

/** What the batch's commands name: agent wallets, recipients by address, and users whose master they move. */
function namedBy(commands: readonly BatchCommand[], held: HeldRows) {
  const named = emptyNamed();
  for (const command of commands) nameCommand(command, named, held);
  return {
    agentIds: [...named.agentIds],
    addresses: [...named.addresses],
    masterUsers: [...named.masterUsers],
    movedAgents: [...named.movedAgents],
  };
}

type NamedIds = ReturnType<typeof namedBy>;

/**
 * Loads the batch's state. `locked`: the wallet rows the writer already locked (PostgreSQL), or null to read
 * them here (SQLite, whose one writer needs no row locks).
 */
export async function loadBatch(
  trx: Kysely<Database>,
  commands: readonly BatchCommand[],
  locked: readonly WalletRow[] | null,
  dialect: Dialect,
): Promise<LoadedBatch> {
  assert(commands.length > 0, 'a batch has a command');
  const { held, approvals } = await loadHeld(
    trx,
    commands.flatMap((c) => heldIdOf(c) ?? []),
  );
  const named = namedBy(commands, held);
  const rows = locked ?? (await walletsOf(trx, named));
  const firstNowMs = Math.min(...commands.map((c) => c.nowMs));
  const [reads, keys, pending] = await Promise.all([
    walletReadsOf(
      trx,
      rows.map((row) => row.id),
      dialect,
    ),
    loadStoredKeys(trx, commands, dialect),
    pendingCounts(trx, named.movedAgents),
  ]);
  // Policies count for the wallets that pay (a recipient's do not).
  const policies = new Map(named.agentIds.map((id) => [id, reads.policies.get(id) ?? []]));
  const needed = new Map([...policies].map(([id, list]) => [id, spansOf(list)]));
  // A wallet a command names that does not exist has no row (its command is answered NOT_FOUND).
  const kept = named.agentIds.flatMap((walletId) =>
    reads.kept.has(walletId) ? [{ walletId, json: reads.kept.get(walletId)! }] : [],
  );
  const spending = await loadSpendingWindows(trx, { kept, needed, nowMs: firstNowMs }, dialect);
  const windows = await loadWindowTotals(trx, policies, spending, recipientsOf(commands), firstNowMs);
  const state: BatchState = {
    wallets: new Map(),
    walletIdByAddress: new Map(),
    masterIdByUser: new Map(),
    keys,
    held,
    approvals,
  };
  for (const row of rows) {
    state.wallets.set(row.id, {
      ...walletStateOf(row),
      ...(reads.byWallet.get(row.id) ?? { availableMicros: 0n, heldMicros: 0n }),
      spent24hMicros: spending.get(row.id)?.get(DAY_MS)?.spentMicros ?? 0n,
      windows: windows.get(row.id) ?? emptyWindows(),
      policies: policies.get(row.id) ?? [],
      pendingCount: pending.get(row.id) ?? 0,
    });
    if (named.addresses.includes(row.address)) state.walletIdByAddress.set(row.address, row.id);
    if (row.kind === 'master') state.masterIdByUser.set(row.user_id, row.id);
  }
  const alerts = { list: [...reads.alerts.values()].flat(), capsLoaded: new Set(named.agentIds) };
  return { state, spending: { windows: spending, nowMs: firstNowMs }, alerts };
}

function walletStateOf(row: WalletRow) {
  // The pair of the running total's updates: it never goes below zero.
  assert(row.spent_micros >= 0n, `wallet ${row.id} has a negative spent total`);
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind,
    address: row.address,
    label: row.label,
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    frozen: row.frozen_at_ms !== null,
    spentMicros: row.spent_micros,
  } satisfies Partial<WalletState>;
}

function walletsOf(trx: Kysely<Database>, named: NamedIds) {
  return trx
    .selectFrom('wallets')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('id', 'in', ['', ...named.agentIds]),
        eb('address', 'in', ['', ...named.addresses]),
        eb.and([eb('kind', '=', 'master'), eb('user_id', 'in', ['', ...named.masterUsers])]),
      ]),
    )
    .execute();
}

/** Payments awaiting approval per wallet: a fund or withdraw answers with its agent wallet's count. */
async function pendingCounts(trx: Kysely<Database>, walletIds: string[]) {
  const byWallet = new Map<string, number>();
  if (walletIds.length === 0) return byWallet;
  const rows = await trx
    .selectFrom('transactions')
    .select((eb) => ['wallet_id', eb.fn.countAll<bigint>().as('n')])
    .where('wallet_id', 'in', walletIds)
    .where('status', '=', 'pending')
    .where(notCompleted)
    .groupBy('wallet_id')
    .execute();
  for (const row of rows) byWallet.set(row.wallet_id, Number(row.n));
  return byWallet;
}

/**
 * Both balances of each wallet and, with its available account, its kept spending windows
 * (store/kept-windows.ts) and its active policies in the order they were made: one statement after the wallets
 * are locked (measured on PostgreSQL, each read of its own was a round trip in every batch).
 */
async function walletReadsOf(trx: Kysely<Database>, walletIds: string[], dialect: Dialect) {
  const byWallet = new Map<string, { availableMicros: bigint; heldMicros: bigint }>();
  const kept = new Map<string, KeptWindowsJson>();
  const policies = new Map<string, ActivePolicy[]>();
  const alerts = new Map<string, AlertState[]>();
  if (walletIds.length === 0) return { byWallet, kept, policies, alerts };
  const windows = keptWindowsColumn(dialect, sql`accounts.wallet_id`);
  const rows = await trx
    .selectFrom('accounts')
    .select(['wallet_id', 'kind', 'balance_micros'])
    .select(sql<KeptWindowsJson>`case when kind = 'available' then ${windows} end`.as('windows_json'))
    .select(
      sql<PoliciesJson>`case when kind = 'available' then ${activePoliciesJsonSql(dialect, sql`accounts.wallet_id`)} end`.as(
        'policies_json',
      ),
    )
    .select(
      sql<AlertsJson>`case when kind = 'available' then ${alertsJsonSql(dialect, sql`accounts.wallet_id`)} end`.as(
        'alerts_json',
      ),
    )
    .where('id', 'in', walletAccountIds(walletIds))
    .execute();
  for (const row of rows) {
    // The pair of the guarded update: balances read back are never negative.
    assert(row.balance_micros >= 0n, `an account of ${row.wallet_id} is negative`);
    const entry = byWallet.get(row.wallet_id!) ?? { availableMicros: 0n, heldMicros: 0n };
    if (row.kind === 'hold') entry.heldMicros = row.balance_micros;
    else {
      entry.availableMicros = row.balance_micros;
      kept.set(row.wallet_id!, row.windows_json);
      policies.set(row.wallet_id!, policiesFromJson(row.policies_json));
      alerts.set(row.wallet_id!, alertsFromJson(row.wallet_id!, row.alerts_json));
    }
    byWallet.set(row.wallet_id!, entry);
  }
  return { byWallet, kept, policies, alerts };
}
