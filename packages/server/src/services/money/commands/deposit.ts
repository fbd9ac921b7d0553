// Deposit credits (the rail's money into a master wallet): decided by domain/money/movement-batch.ts
// (decideDeposit). Here: what a credit names for the batch's load, its deposit row and its event.
import type { BatchEffects } from '../../../domain/money/batch-state.ts';
import type { DepositCommand } from '../../../domain/money/movement-batch.ts';
import { insertRows, type WriteStep } from '../../../store/write-plan.ts';
import type { NewEvent } from '../../webhooks/webhook-events.ts';
import { depositRow, depositViewOf } from '../deposits.ts';
import type { Named, StepContext } from './module.ts';

/** The owner's master wallet, which the deposit credits. */
export function nameDeposit(command: DepositCommand, named: Named): void {
  named.masterUsers.add(command.userId);
}

/** The batch's credited deposits (one insert). */
export function depositSteps(effects: BatchEffects, { dialect }: StepContext): WriteStep[] {
  if (effects.deposits.length === 0) return [];
  return [{ what: 'deposits', query: insertRows(dialect, 'deposits', effects.deposits.map(depositRow)) }];
}

/** Each credited deposit as its `deposit.credited` event. */
export function depositEvents(effects: BatchEffects): NewEvent[] {
  return effects.deposits.map((deposit) => ({
    userId: deposit.userId,
    type: 'deposit.credited',
    data: () => depositViewOf(depositRow(deposit)),
    nowMs: deposit.nowMs,
  }));
}
