// Payments (send, request_approval): decided by domain/money/payment-batch.ts. Here: what a payment names for
// the batch's load, its webhook events, and the writes of what only payments cause: denials counted and wallets
// frozen by an auto_freeze policy, and the outbox rows of payouts handed to the rail.

import { payoutRow } from '../../../chain/outbox-rows.ts';
import { newId } from '../../../domain/ids.ts';
import type { BatchEffects, RecordSpec } from '../../../domain/money/batch-state.ts';
import type { PaymentCommand } from '../../../domain/money/payment-batch.ts';
import type { EventType } from '../../../domain/webhooks/webhook-events.ts';
import { assert } from '../../../errors.ts';
import { insertRows, type WriteStep } from '../../../store/write-plan.ts';
import { transactionRow, transactionView } from '../../wallets/transactions.ts';
import type { NewEvent } from '../../webhooks/webhook-events.ts';
import type { Named, StepContext } from './module.ts';

/** The payer and its recipient: both are loaded (and, on PostgreSQL, locked by the writer). */
export function namePayment(command: PaymentCommand, named: Named): void {
  named.agentIds.add(command.walletId);
  named.addresses.add(command.toAddress);
}

const PAYMENT_EVENT_BY_STATUS: Partial<Record<RecordSpec['status'], EventType>> = {
  completed: 'payment.completed',
  rejected: 'payment.rejected',
  pending: 'approval.requested',
};

/** A new payment record's webhook event; a processing payment reports when it completes (none now). */
export function paymentEvent(record: RecordSpec): NewEvent | null {
  const type = PAYMENT_EVENT_BY_STATUS[record.status];
  if (type === undefined) return null;
  return {
    userId: record.userId,
    type,
    data: () => transactionView(transactionRow(record)),
    nowMs: record.nowMs,
  };
}

/** Wallets an auto_freeze policy froze in the batch, as `wallet.frozen` events. */
export function freezeEvents(effects: BatchEffects): NewEvent[] {
  return effects.freezes.map((freeze) => ({
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
  }));
}

/** Denials counted for auto_freeze policies (one insert), then each wallet frozen (rare: one update each). */
export function breakerSteps(effects: BatchEffects, { trx, dialect }: StepContext): WriteStep[] {
  const steps: WriteStep[] = [];
  if (effects.denials.length > 0) {
    const rows = effects.denials.map((d) => ({ wallet_id: d.walletId, at_ms: BigInt(d.atMs) }));
    steps.push({ what: 'payment_denials', query: insertRows(dialect, 'payment_denials', rows) });
  }
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
    steps.push({ what: `auto_freeze of ${freeze.walletId}`, query: query.compile() });
  }
  return steps;
}

/**
 * The owners' requests of payments that wait for their signatures (bounded mode), with the pending payment: the
 * approvals API sees at once that it is the owners' to sign, and a replay of its key never writes another.
 */
export function ownersRequestSteps(effects: BatchEffects, { trx }: StepContext): WriteStep[] {
  if (effects.ownersRequests.length === 0) return [];
  const rows = effects.ownersRequests.map((spec) => ({
    ...spec.request,
    transaction_id: spec.transactionId,
  }));
  const query = trx.insertInto('treasury_signature_requests').values(rows);
  return [{ what: "owners' requests", query: query.compile() }];
}

/** The outbox rows of payments handed to the rail's sender, in the same database transaction as their debit. */
export function payoutSteps(effects: BatchEffects, { trx, payoutFromAddress }: StepContext): WriteStep[] {
  if (effects.payouts.length === 0) return [];
  assert(payoutFromAddress !== null, 'a payout was decided on a rail without a payout address');
  const query = trx
    .insertInto('chain_outbox')
    .values(effects.payouts.map((payout) => payoutRow(payout, payoutFromAddress, newId('obx'))));
  return [{ what: 'payouts', query: query.compile() }];
}
