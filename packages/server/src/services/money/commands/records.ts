// What payments, withdrawals, funds and withdraws share: their new transaction records (each with its creation
// event), and each wallet's running spent total, which the records and the answered payments move.
import { sql } from 'kysely';
import type { BatchEffects } from '../../../domain/money/batch-state.ts';
import { valuesTable } from '../../../store/values-table.ts';
import { insertRows, type WriteStep } from '../../../store/write-plan.ts';
import { creationEventRow, transactionRow } from '../../wallets/transactions.ts';
import { spendingChanges } from '../spending-windows.ts';
import type { StepContext } from './module.ts';

/** The batch's new records and their creation events: two inserts. */
export function recordSteps(effects: BatchEffects, { dialect }: StepContext): WriteStep[] {
  if (effects.records.length === 0) return [];
  return [
    { what: 'transactions', query: insertRows(dialect, 'transactions', effects.records.map(transactionRow)) },
    {
      what: 'transaction_events',
      query: insertRows(dialect, 'transaction_events', effects.records.map(creationEventRow)),
    },
  ];
}

/** The per-wallet changes a batch applies in one statement, as the table `v(id, delta)`. */
const ID_DELTA = [
  ['id', 'text'],
  ['delta', 'bigint'],
] as const;

/**
 * Each wallet's running spent total moves by what its new records count and by what its answered payments stop
 * or keep counting (spendingChanges, which moves its spending windows too): one statement for the batch.
 */
export function spentTotalSteps(effects: BatchEffects, { trx, dialect }: StepContext): WriteStep[] {
  const deltas = new Map<string, bigint>();
  for (const { walletId, micros } of spendingChanges(effects)) {
    deltas.set(walletId, (deltas.get(walletId) ?? 0n) + micros);
  }
  const changed = [...deltas].filter(([, delta]) => delta !== 0n);
  if (changed.length === 0) return [];
  const query = sql`update wallets set spent_micros = wallets.spent_micros + v.delta
    from ${valuesTable(changed, ID_DELTA, dialect)} where wallets.id = v.id`.compile(trx);
  return [{ what: 'spent totals', query }];
}
