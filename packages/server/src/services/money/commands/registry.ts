// The money commands' one typed registry. Every kind of BatchCommand (domain/money/batch.ts, whose exhaustive
// switch is the pure half: which decider decides it) is handled here by its module: what it names for the
// batch's one load, the payments it answers, its events and its writes. Each switch below is exhaustive over
// the kinds (a new kind does not compile until every one handles it), and the write plan keeps one fixed order.
import type { BatchCommand } from '../../../domain/money/batch.ts';
import type { BatchEffects } from '../../../domain/money/batch-state.ts';
import { ledgerWriteSteps } from '../../../ledger/ledger.ts';
import type { WriteStep } from '../../../store/write-plan.ts';
import type { NewEvent } from '../../webhooks/webhook-events.ts';
import { keySteps } from '../idempotency.ts';
import { approvalSteps, nameResolve, noticeEvents, transitionSteps } from './approval.ts';
import { depositEvents, depositSteps, nameDeposit } from './deposit.ts';
import type { HeldRows, Named, StepContext } from './module.ts';
import { nameMove } from './movement.ts';
import {
  breakerSteps,
  freezeEvents,
  namePayment,
  ownersRequestSteps,
  paymentEvent,
  payoutSteps,
} from './payment.ts';
import { recordSteps, spentTotalSteps } from './records.ts';
import { nameWithdrawal, withdrawalEvent } from './withdrawal.ts';
import { nameX402, x402Steps } from './x402.ts';

/** Adds what `command` names to `named`: the wallets, recipients and masters the batch loads. */
export function nameCommand(command: BatchCommand, named: Named, held: HeldRows): void {
  switch (command.kind) {
    case 'send':
    case 'request_approval':
      namePayment(command, named);
      return;
    case 'x402':
      nameX402(command, named);
      return;
    case 'fund':
    case 'withdraw':
      nameMove(command, named);
      return;
    case 'deposit':
      nameDeposit(command, named);
      return;
    case 'master_withdrawal':
      nameWithdrawal(command, named);
      return;
    case 'approve':
    case 'reject':
    case 'expire':
      nameResolve(command, named, held);
      return;
  }
}

/** The held payment a command answers (read before the batch is decided), or null. */
export function heldIdOf(command: BatchCommand): string | null {
  switch (command.kind) {
    case 'approve':
    case 'reject':
    case 'expire':
      return command.transactionId;
    default:
      return null;
  }
}

/** The recipient a paying command pays: what its wallet's recipient caps are loaded for; null if none. */
export function paidAddressOf(command: BatchCommand): { walletId: string; toAddress: string } | null {
  switch (command.kind) {
    case 'send':
    case 'request_approval':
    case 'x402':
      return { walletId: command.walletId, toAddress: command.toAddress };
    default:
      return null;
  }
}

/** Pure: the webhook events a batch's effects report, in record order, then notices, freezes and deposits. */
export function batchEvents(effects: BatchEffects): NewEvent[] {
  const events: NewEvent[] = [];
  for (const record of effects.records) {
    if (record.type !== 'payment') continue;
    const event = record.withdrawal === true ? withdrawalEvent(record) : paymentEvent(record);
    if (event !== null) events.push(event);
  }
  events.push(...noticeEvents(effects), ...freezeEvents(effects), ...depositEvents(effects));
  return events;
}

/**
 * Every write of the batch, in the one order the write plan has always had (one statement on PostgreSQL,
 * store/write-plan.ts): the ledger's first (ledger/ alone changes a balance), then each family's rows.
 */
export function writeSteps(effects: BatchEffects, context: StepContext): WriteStep[] {
  return [
    ...ledgerWriteSteps(context.trx, effects, context.dialect),
    ...recordSteps(effects, context),
    ...depositSteps(effects, context),
    ...approvalSteps(effects, context),
    ...breakerSteps(effects, context),
    ...transitionSteps(effects, context),
    ...spentTotalSteps(effects, context),
    ...keySteps(effects, context),
    ...payoutSteps(effects, context),
    ...x402Steps(effects, context),
    ...ownersRequestSteps(effects, context),
  ];
}
