// The store side of batched money commands (payments, fund, withdraw, deposits, approvals and their expiry):
// load what a batch needs with a few set-based queries, let the pure deciders (domain/money/batch.ts) decide every
// command in memory, then write every effect with multi-row statements, sent as one statement on PostgreSQL
// (store/write-plan.ts). A batch of any size costs a handful of statements (an internal-payment batch: seven on
// PostgreSQL), not a dozen per command.
import { type CompiledQuery, type Insertable, type Kysely, sql } from 'kysely';
import { payoutRow } from '../../chain/outbox-rows.ts';
import { type AlertFiring, type AlertState, evaluateAlert } from '../../domain/alerts.ts';
import { newId } from '../../domain/ids.ts';
import { walletAccountIds } from '../../domain/money/accounts.ts';
import type { ApprovalMark } from '../../domain/money/approvals.ts';
import { type BatchCommand, decideBatch } from '../../domain/money/batch.ts';
import {
  type BatchContext,
  type BatchEffects,
  type BatchState,
  type CommandResult,
  emptyEffects,
  emptyWindows,
  type HeldRow,
  keyOf,
  type RecordSpec,
  type StoredKey,
  type WalletState,
} from '../../domain/money/batch-state.ts';
import { decidePayment, type PaymentCommand } from '../../domain/money/payment-batch.ts';
import { formatMicros } from '../../domain/money.ts';
import type { Outcome } from '../../domain/outcome.ts';
import { type ActivePolicy, DAY_MS } from '../../domain/policies.ts';
import type { EventType } from '../../domain/webhook-events.ts';
import { assert, notFound } from '../../errors.ts';
import { ledgerWriteSteps } from '../../ledger/ledger.ts';
import type { Dialect } from '../../store/db.ts';
import { type KeptWindowsJson, keptWindowsColumn } from '../../store/kept-windows.ts';
import { notCompleted } from '../../store/partial-index.ts';
import type { Database } from '../../store/schema.ts';
import { valuesTable } from '../../store/values-table.ts';
import { insertRows, runWrites, type WriteStep } from '../../store/write-plan.ts';
import { type AlertsJson, alertsFromJson, alertsJsonSql } from '../alerts.ts';
import { activePoliciesJsonSql, type PoliciesJson, policiesFromJson } from '../policies.ts';
import {
  approvalRow,
  approvalsOf,
  creationEventRow,
  eventRow,
  transactionRow,
  transactionView,
  withdrawalView,
} from '../transactions.ts';
import type { WalletRow } from '../wallet-rows.ts';
import { agentWalletViewOf } from '../wallet-views.ts';
import { type EventOutbox, eventWrites, type NewEvent } from '../webhook-events.ts';
import { depositRow, depositViewOf } from './deposits.ts';
import {
  loadSpendingWindows,
  type SpendingWindows,
  spansOf,
  spendingChanges,
  spendingWindowsStep,
} from './spending-windows.ts';
import { loadWindowTotals } from './window-totals.ts';

export interface MoneyBatchOptions {
  dialect: Dialect;
  /** Where the batch's events go besides webhooks (email). */
  events: EventOutbox;
  railName: string;
  /** Whether the rail settles at once (sandbox) or through the outbox (evm: payouts from `payoutFromAddress`). */
  railSettlesAtOnce: boolean;
  /** The treasury address payouts are sent from (evm); null on a rail that settles at once. */
  payoutFromAddress: string | null;
  approvalTtlMs: number;
}

/**
 * Decides and writes a batch of money commands inside the writer's transaction. `locked`: the wallet rows the
 * writer already locked (PostgreSQL), or null to read them here (SQLite, whose one writer needs no row locks).
 */
export async function executeMoneyBatch(
  trx: Kysely<Database>,
  commands: readonly BatchCommand[],
  locked: readonly WalletRow[] | null,
  options: MoneyBatchOptions,
): Promise<CommandResult[]> {
  const { state, spending, alerts } = await loadState(trx, commands, locked, options.dialect);
  const { results, effects } = decideBatch(state, commands, batchContext(options));
  const alerted = alertChanges(state, alerts, spending.nowMs);
  // The webhook events' subscribers are read first, so that their rows go with the batch's other writes.
  const events = [...batchEvents(effects), ...alerted.firings.map((f) => alertEvent(f, spending.nowMs))];
  const eventSteps = await eventWrites(trx, events, options.events);
  const windows = spendingWindowsStep(spending.windows, effects, spending.nowMs, options.dialect);
  const steps = [
    ...writeSteps(trx, effects, options),
    ...(windows === undefined ? [] : [windows]),
    ...alertSteps(trx, alerted.updates),
  ];
  await runWrites(trx, [...steps, ...eventSteps], options.dialect);
  return results;
}

/**
 * The alerts of the batch's wallets as the batch leaves them: balance alerts of every wallet it loaded, cap
 * alerts of the agent wallets whose policies and spending it loaded (`loaded`); what fires, and what changed.
 */
function alertChanges(state: BatchState, alerts: LoadedAlerts, nowMs: number) {
  const firings: AlertFiring[] = [];
  const updates: Array<{ id: string; fired: string[] }> = [];
  for (const alert of alerts.list) {
    const wallet = state.wallets.get(alert.walletId);
    if (wallet === undefined) continue;
    if (alert.rule.type === 'cap_used' && !alerts.capsLoaded.has(wallet.id)) continue;
    const next = evaluateAlert(alert, wallet, nowMs);
    firings.push(...next.firings);
    const same = next.fired.size === alert.fired.size && [...next.fired].every((k) => alert.fired.has(k));
    if (!same) updates.push({ id: alert.id, fired: [...next.fired].sort() });
  }
  return { firings, updates };
}

function alertSteps(
  trx: Kysely<Database>,
  updates: ReadonlyArray<{ id: string; fired: string[] }>,
): WriteStep[] {
  return updates.map((u) => ({
    what: `alert ${u.id}`,
    query: trx
      .updateTable('alerts')
      .set({ fired_json: JSON.stringify(u.fired) })
      .where('id', '=', u.id)
      .compile(),
  }));
}

/** An alert's firing as the webhook event (and email) it is. */
function alertEvent(firing: AlertFiring, nowMs: number): NewEvent {
  const at = { alertId: firing.alertId, walletId: firing.walletId };
  if (firing.type === 'balance.low') {
    return {
      userId: firing.userId,
      type: 'balance.low',
      data: () => ({
        ...at,
        balance: formatMicros(firing.balanceMicros),
        threshold: formatMicros(firing.thresholdMicros),
      }),
      nowMs,
    };
  }
  return {
    userId: firing.userId,
    type: 'budget.threshold',
    data: () => ({
      ...at,
      policyId: firing.policyId,
      policyType: firing.policyType,
      percent: firing.percent,
      limit: formatMicros(firing.limitMicros),
      spent: formatMicros(firing.spentMicros),
    }),
    nowMs,
  };
}

interface LoadedAlerts {
  list: AlertState[];
  /** Agent wallets whose policies and spending the batch loaded: their cap alerts can be judged. */
  capsLoaded: ReadonlySet<string>;
}

/** Pure: the webhook events a batch's new records report (a processing payment reports when it completes). */
export function batchEvents(effects: BatchEffects): NewEvent[] {
  const events: NewEvent[] = [];
  for (const record of effects.records) {
    if (record.type !== 'payment') continue;
    if (record.withdrawal === true) {
      if (record.status === 'completed') {
        const row = transactionRow(record);
        events.push({
          userId: record.userId,
          type: 'withdrawal.completed',
          data: () => withdrawalView(row),
          nowMs: record.nowMs,
        });
      }
      continue;
    }
    const type = PAYMENT_EVENT_BY_STATUS[record.status];
    if (type === undefined) continue;
    events.push({
      userId: record.userId,
      type,
      data: () => transactionView(transactionRow(record)),
      nowMs: record.nowMs,
    });
  }
  for (const notice of effects.notices) {
    events.push({
      userId: notice.row.user_id,
      type: notice.type,
      data: () => transactionView(notice.row, notice.approvals),
      nowMs: Number(notice.row.updated_at_ms),
    });
  }
  for (const freeze of effects.freezes) {
    events.push({
      userId: freeze.userId,
      type: 'wallet.frozen',
      data: () => ({
        walletId: freeze.walletId,
        frozen: true,
        reason: 'auto_freeze',
        policyId: freeze.policyId,
        denials: freeze.denials,
        window: freeze.window,
        frozenAt: new Date(freeze.nowMs).toISOString(),
      }),
      nowMs: freeze.nowMs,
    });
  }
  for (const deposit of effects.deposits) {
    events.push({
      userId: deposit.userId,
      type: 'deposit.credited',
      data: () => depositViewOf(depositRow(deposit)),
      nowMs: deposit.nowMs,
    });
  }
  return events;
}

const PAYMENT_EVENT_BY_STATUS: Partial<Record<RecordSpec['status'], EventType>> = {
  completed: 'payment.completed',
  rejected: 'payment.rejected',
  pending: 'approval.requested',
};

function batchContext(options: MoneyBatchOptions): BatchContext {
  return {
    railName: options.railName,
    railSettlesAtOnce: options.railSettlesAtOnce,
    approvalTtlMs: options.approvalTtlMs,
    newId,
    movementData: (record, agent, masterAvailableMicros) => ({
      transaction: transactionView(transactionRow(record)),
      wallet: agentWalletViewOf(agent),
      masterBalance: formatMicros(masterAvailableMicros),
    }),
  };
}

/**
 * What a payment command would do now, decided by the very function the writer uses (decidePayment) against
 * the state read in a snapshot, its effects thrown away: nothing stored, nothing held, no idempotency claim.
 * The wallet after the decision (its balances and window totals moved) comes back for the caller's views.
 */
export async function previewPayment(
  db: Kysely<Database>,
  command: PaymentCommand,
  options: MoneyBatchOptions,
): Promise<{
  outcome: Outcome<unknown>;
  before: WalletState;
  after: WalletState;
  /** Calendar budgets' spending before the decision (the decision moves the wallet's own maps). */
  periodsBefore: Map<string, bigint>;
}> {
  return db.transaction().execute(async (trx) => {
    const { state } = await loadState(trx, [command], null, options.dialect);
    const wallet = state.wallets.get(command.walletId);
    if (wallet === undefined) throw notFound('wallet');
    const before = { ...wallet };
    const periodsBefore = new Map(wallet.windows.periods);
    const outcome = decidePayment(state, command, batchContext(options), emptyEffects());
    return { outcome, before, after: wallet, periodsBefore };
  });
}

/** The addresses each paying wallet's commands pay: what recipient caps are loaded for. */
function recipientsOf(commands: readonly BatchCommand[]): Map<string, Set<string>> {
  const byWallet = new Map<string, Set<string>>();
  for (const c of commands) {
    if (c.kind !== 'send' && c.kind !== 'request_approval' && c.kind !== 'x402') continue;
    byWallet.set(c.walletId, (byWallet.get(c.walletId) ?? new Set()).add(c.toAddress));
  }
  return byWallet;
}

/** What the batch's commands name: agent wallets, recipients by address, and users whose master they move. */
function namedBy(commands: readonly BatchCommand[], held: ReadonlyMap<string, HeldRow>) {
  const agentIds = new Set<string>();
  const addresses = new Set<string>();
  const masterUsers = new Set<string>();
  const movedAgents = new Set<string>();
  for (const c of commands) {
    switch (c.kind) {
      case 'approve':
      case 'reject':
      case 'expire': {
        agentIds.add(c.walletId);
        // An approval may credit a wallet of this service (an x402 seller is paid on chain).
        const row = held.get(c.transactionId);
        if (c.kind === 'approve' && row?.to_address && row.resource === null) addresses.add(row.to_address);
        break;
      }
      case 'send':
      case 'request_approval':
        agentIds.add(c.walletId);
        addresses.add(c.toAddress);
        break;
      case 'x402':
        // The seller is paid on chain whoever it is: only the payer is loaded.
        agentIds.add(c.walletId);
        break;
      case 'deposit':
        masterUsers.add(c.userId);
        break;
      case 'master_withdrawal':
        masterUsers.add(c.userId);
        addresses.add(c.toAddress);
        break;
      case 'fund':
      case 'withdraw':
        agentIds.add(c.walletId);
        movedAgents.add(c.walletId);
        masterUsers.add(c.userId);
    }
  }
  return {
    agentIds: [...agentIds],
    addresses: [...addresses],
    masterUsers: [...masterUsers],
    movedAgents: [...movedAgents],
  };
}

async function loadState(
  trx: Kysely<Database>,
  commands: readonly BatchCommand[],
  locked: readonly WalletRow[] | null,
  dialect: Dialect,
): Promise<{
  state: BatchState;
  spending: { windows: SpendingWindows; nowMs: number };
  alerts: LoadedAlerts;
}> {
  const { held, approvals } = await heldOf(trx, commands);
  const named = namedBy(commands, held);
  const rows = locked ?? (await walletsOf(trx, named));
  const firstNowMs = Math.min(...commands.map((c) => c.nowMs));
  const [reads, keys, pending] = await Promise.all([
    walletReadsOf(
      trx,
      rows.map((row) => row.id),
      dialect,
    ),
    storedKeys(trx, commands, dialect),
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
    const balance = reads.byWallet.get(row.id) ?? { availableMicros: 0n, heldMicros: 0n };
    state.wallets.set(row.id, {
      ...walletStateOf(row),
      ...balance,
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

/**
 * The payments approve, reject and expire commands name, and their approvals so far: read after the wallets are
 * locked, so an approval on another instance is either counted here or waits for this batch.
 */
async function heldOf(trx: Kysely<Database>, commands: readonly BatchCommand[]) {
  const held = new Map<string, HeldRow>();
  const approvals = new Map<string, ApprovalMark[]>();
  const ids = commands.flatMap((c) =>
    c.kind === 'approve' || c.kind === 'reject' || c.kind === 'expire' ? [c.transactionId] : [],
  );
  if (ids.length === 0) return { held, approvals };
  const rows = await trx.selectFrom('transactions').selectAll().where('id', 'in', ids).execute();
  for (const row of rows) held.set(row.id, row);
  for (const [id, marks] of await approvalsOf(trx, ids)) approvals.set(id, marks);
  return { held, approvals };
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

function walletsOf(trx: Kysely<Database>, named: ReturnType<typeof namedBy>) {
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

/** The stored outcomes of the idempotency keys the batch names (tool keys are scoped to the locked wallet). */
async function storedKeys(trx: Kysely<Database>, commands: readonly BatchCommand[], dialect: Dialect) {
  const keys = new Map<string, StoredKey>();
  const claims = commands.flatMap((c) => (c.idempotency === null ? [] : [c.idempotency]));
  if (claims.length === 0) return keys;
  const pairs = sql.join(claims.map((c) => sql`(${c.scope}, ${c.key})`));
  const rows = await sql<{
    scope: string;
    key: string;
    request_hash: string;
    response_body: string | null;
    created_at_ms: bigint;
  }>`
    select scope, key, request_hash, response_body, created_at_ms from idempotency_keys
    where (scope, key) in (${dialect === 'sqlite' ? sql`values ${pairs}` : pairs})`.execute(trx);
  for (const row of rows.rows) {
    assert(row.response_body !== null, 'a committed idempotency key always has its outcome');
    keys.set(keyOf(row.scope, row.key), {
      fingerprint: row.request_hash,
      outcome: JSON.parse(row.response_body) as Outcome<unknown>,
      createdAtMs: Number(row.created_at_ms),
    });
  }
  return keys;
}

/** Every write of the batch, in order: one statement on PostgreSQL (store/write-plan.ts). */
function writeSteps(trx: Kysely<Database>, effects: BatchEffects, options: MoneyBatchOptions): WriteStep[] {
  const steps: WriteStep[] = [];
  const add = (what: string, query: { compile(): CompiledQuery }) =>
    steps.push({ what, query: query.compile() });
  const insert = <T extends keyof Database & string>(table: T, rows: Insertable<Database[T]>[]) =>
    steps.push({ what: table, query: insertRows(options.dialect, table, rows) });
  // The ledger's own writes (the only code that changes a balance), first as before.
  steps.push(...ledgerWriteSteps(trx, effects, options.dialect));
  if (effects.records.length > 0) {
    insert('transactions', effects.records.map(transactionRow));
    insert('transaction_events', effects.records.map(creationEventRow));
  }
  if (effects.deposits.length > 0) insert('deposits', effects.deposits.map(depositRow));
  if (effects.approvals.length > 0) insert('transaction_approvals', effects.approvals.map(approvalRow));
  if (effects.denials.length > 0)
    insert(
      'payment_denials',
      effects.denials.map((d) => ({ wallet_id: d.walletId, at_ms: BigInt(d.atMs) })),
    );
  for (const freeze of effects.freezes) {
    const query = trx
      .updateTable('wallets')
      .set({
        frozen_at_ms: BigInt(freeze.nowMs),
        frozen_reason: 'auto_freeze',
        updated_at_ms: BigInt(freeze.nowMs),
      })
      .where('id', '=', freeze.walletId)
      .where('frozen_at_ms', 'is', null);
    add(`auto_freeze of ${freeze.walletId}`, query);
  }
  steps.push(...transitionSteps(trx, effects, options.dialect));
  const spent = spentTotalsStep(trx, effects, options.dialect);
  if (spent !== undefined) steps.push(spent);
  if (effects.idempotency.length > 0) add('idempotency keys', keysInsert(trx, effects));
  if (effects.payouts.length > 0)
    add('payouts', payoutsInsert(trx, effects.payouts, options.payoutFromAddress));
  if (effects.x402.length > 0) add('x402 payments', x402Insert(trx, effects.x402));
  return steps;
}

/**
 * Approvals, rejections and expiries: each payment's row as it ends the batch, one audit event per transition,
 * and approved x402 payments' rows. Rare next to payments, so one update per changed payment.
 */
function transitionSteps(trx: Kysely<Database>, effects: BatchEffects, dialect: Dialect): WriteStep[] {
  if (effects.transitions.length === 0) return [];
  const last = new Map(effects.transitions.map((t) => [t.after.id, t.after]));
  const steps: WriteStep[] = [...last.values()].map((row) => ({
    what: `transition of ${row.id}`,
    query: trx
      .updateTable('transactions')
      .set({
        status: row.status,
        rail: row.rail,
        rejection_reason: row.rejection_reason,
        updated_at_ms: row.updated_at_ms,
      })
      .where('id', '=', row.id)
      .compile(),
  }));
  const events = effects.transitions.map((t) =>
    eventRow(t.after.id, t.after.status, t.actor, t.note, Number(t.after.updated_at_ms)),
  );
  steps.push({ what: 'transition events', query: insertRows(dialect, 'transaction_events', events) });
  for (const { transactionId, nowMs } of effects.x402Approved) {
    const query = trx
      .updateTable('x402_payments')
      .set({ state: 'approved', updated_at_ms: BigInt(nowMs) })
      .where('transaction_id', '=', transactionId)
      .where('state', '=', 'awaiting_approval')
      .compile();
    steps.push({ what: `x402 approval of ${transactionId}`, query });
  }
  return steps;
}

/** The per-wallet changes a batch applies in one statement, as the table `v(id, delta)`. */
const ID_DELTA = [
  ['id', 'text'],
  ['delta', 'bigint'],
] as const;

/** The outbox rows of payments handed to the rail's sender, in the same database transaction as their debit. */
function payoutsInsert(trx: Kysely<Database>, payouts: BatchEffects['payouts'], fromAddress: string | null) {
  assert(fromAddress !== null, 'a payout was decided on a rail without a payout address');
  return trx
    .insertInto('chain_outbox')
    .values(payouts.map((payout) => payoutRow(payout, fromAddress, newId('obx'))));
}

/** The x402 rows of the batch's x402 payments, with their debit: from here a signature can be resumed. */
function x402Insert(trx: Kysely<Database>, rows: BatchEffects['x402']) {
  return trx.insertInto('x402_payments').values(
    rows.map((r) => ({
      transaction_id: r.transactionId,
      wallet_id: r.walletId,
      state: r.state,
      x402_version: BigInt(r.details.version),
      method: r.details.method,
      requirement_json: r.details.requirementJson,
      resource_json: r.details.resourceJson,
      pay_to: r.payTo,
      amount_micros: r.amountMicros,
      nonce: r.state === 'signed' ? r.details.nonce : null,
      valid_before_s: r.state === 'signed' ? r.details.validBeforeS : null,
      settle_tx_hash: null,
      created_at_ms: BigInt(r.nowMs),
      updated_at_ms: BigInt(r.nowMs),
    })),
  );
}

/**
 * Each wallet's running spent total moves by what its new records count and by what its answered payments stop
 * or keep counting (spendingChanges, which moves its spending windows too): one statement for the batch.
 */
function spentTotalsStep(
  trx: Kysely<Database>,
  effects: BatchEffects,
  dialect: Dialect,
): WriteStep | undefined {
  const deltas = new Map<string, bigint>();
  for (const { walletId, micros } of spendingChanges(effects)) {
    deltas.set(walletId, (deltas.get(walletId) ?? 0n) + micros);
  }
  const changed = [...deltas].filter(([, delta]) => delta !== 0n);
  if (changed.length === 0) return undefined;
  const query = sql`update wallets set spent_micros = wallets.spent_micros + v.delta
    from ${valuesTable(changed, ID_DELTA, dialect)} where wallets.id = v.id`.compile(trx);
  return { what: 'spent totals', query };
}

/** Outcomes stored under their keys; a key past its window is taken over (its row replaced). */
function keysInsert(trx: Kysely<Database>, effects: BatchEffects) {
  return trx
    .insertInto('idempotency_keys')
    .values(
      effects.idempotency.map((k) => ({
        scope: k.scope,
        key: k.key,
        request_hash: k.fingerprint,
        response_status: k.outcome.ok ? 1n : 0n,
        response_body: JSON.stringify(k.outcome),
        created_at_ms: BigInt(k.nowMs),
      })),
    )
    .onConflict((oc) =>
      oc.columns(['scope', 'key']).doUpdateSet((eb) => ({
        request_hash: eb.ref('excluded.request_hash'),
        response_status: eb.ref('excluded.response_status'),
        response_body: eb.ref('excluded.response_body'),
        created_at_ms: eb.ref('excluded.created_at_ms'),
      })),
    );
}
