// x402 payments (x402_fetch, x402_sign, paid MCP): decided as payments (domain/money/payment-batch.ts) and paid
// on chain by an authorization signed after the commit (services/x402/sign.ts). Here: what one names for the
// batch's load, and its x402_payments row, written with its debit so that a signature can be resumed from it.
import type { BatchEffects } from '../../../domain/money/batch-state.ts';
import type { PaymentCommand } from '../../../domain/money/payment-batch.ts';
import type { WriteStep } from '../../../store/write-plan.ts';
import type { Named, StepContext } from './module.ts';

/** The seller is paid on chain whoever it is: only the payer is loaded. */
export function nameX402(command: PaymentCommand, named: Named): void {
  named.agentIds.add(command.walletId);
}

/** The x402 rows of the batch's x402 payments, with their debit: from here a signature can be resumed. */
export function x402Steps(effects: BatchEffects, { trx }: StepContext): WriteStep[] {
  if (effects.x402.length === 0) return [];
  const query = trx.insertInto('x402_payments').values(
    effects.x402.map((r) => ({
      transaction_id: r.transactionId,
      wallet_id: r.walletId,
      state: r.state,
      x402_version: BigInt(r.details.version),
      method: r.details.method,
      authorization: r.details.authorization,
      settled_micros: null,
      requirement_json: r.details.requirementJson,
      resource_json: r.details.resourceJson,
      extensions_json: r.details.extensionsJson,
      pay_to: r.payTo,
      amount_micros: r.amountMicros,
      nonce: r.state === 'awaiting_approval' ? null : r.details.nonce,
      valid_before_s: r.state === 'awaiting_approval' ? null : r.details.validBeforeS,
      settle_tx_hash: null,
      created_at_ms: BigInt(r.nowMs),
      updated_at_ms: BigInt(r.nowMs),
    })),
  );
  return [{ what: 'x402 payments', query: query.compile() }];
}
