// The store side of batched money commands (payments, x402 payments, fund, withdraw, deposit credits, the owner's
// withdrawals, approvals and their expiry): load what a batch needs with a few set-based queries
// (batch-load.ts), let the pure deciders (domain/money/batch.ts) decide every command in memory, then write
// every effect with multi-row statements (each command kind's module, put in order by commands/registry.ts; the
// ledger's by ledger/), sent as one statement on PostgreSQL (store/write-plan.ts). A batch of any size costs a
// handful of statements (an internal-payment batch: seven on PostgreSQL), not a dozen per command.
import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.ts';
import { type BatchCommand, decideBatch } from '../../domain/money/batch.ts';
import {
  type BatchContext,
  type CommandResult,
  emptyEffects,
  type WalletState,
} from '../../domain/money/batch-state.ts';
import { decidePayment, type PaymentCommand } from '../../domain/money/payment-batch.ts';
import { formatMicros } from '../../domain/money.ts';
import type { Outcome } from '../../domain/outcome.ts';
import { notFound } from '../../errors.ts';
import type { Dialect } from '../../store/db.ts';
import type { Database } from '../../store/schema.ts';
import { runWrites } from '../../store/write-plan.ts';
import { transactionRow, transactionView } from '../wallets/transactions.ts';
import type { WalletRow } from '../wallets/wallet-rows.ts';
import { agentWalletViewOf } from '../wallets/wallet-views.ts';
import { type EventOutbox, eventWrites } from '../webhooks/webhook-events.ts';
import { alertChanges, alertEvent, alertSteps } from './batch-alerts.ts';
import { loadBatch } from './batch-load.ts';
import { batchEvents, writeSteps } from './commands/registry.ts';
import { spendingWindowsStep } from './spending-windows.ts';

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
  const { state, spending, alerts } = await loadBatch(trx, commands, locked, options.dialect);
  const { results, effects } = decideBatch(state, commands, batchContext(options));
  const alerted = alertChanges(state, alerts, spending.nowMs);
  // The webhook events' subscribers are read first, so that their rows go with the batch's other writes.
  const events = [...batchEvents(effects), ...alerted.firings.map((f) => alertEvent(f, spending.nowMs))];
  const eventSteps = await eventWrites(trx, events, options.events);
  const windows = spendingWindowsStep(spending.windows, effects, spending.nowMs, options.dialect);
  const context = { trx, dialect: options.dialect, payoutFromAddress: options.payoutFromAddress };
  const steps = [
    ...writeSteps(effects, context),
    ...(windows === undefined ? [] : [windows]),
    ...alertSteps(trx, alerted.updates),
  ];
  await runWrites(trx, [...steps, ...eventSteps], options.dialect);
  return results;
}

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
    const { state } = await loadBatch(trx, [command], null, options.dialect);
    const wallet = state.wallets.get(command.walletId);
    if (wallet === undefined) throw notFound('wallet');
    const before = { ...wallet };
    const periodsBefore = new Map(wallet.windows.periods);
    const outcome = decidePayment(state, command, batchContext(options), emptyEffects());
    return { outcome, before, after: wallet, periodsBefore };
  });
}
