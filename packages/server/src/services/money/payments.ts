// Agent payments and approval requests. Each request becomes a command of the ledger writer; the commands that
// queue together are decided as one batch (domain/money/payment-batch.ts) under the locks of every wallet they touch,
// and their checks (frozen, policies, balance) and effects (records, ledger entries, idempotency outcome)
// commit together. Nobody is answered before that commit.

import type { OwnersWait } from '../../domain/money/batch-state.ts';
import type {
  PaymentCommand,
  RequestApprovalData,
  SendPaymentData,
} from '../../domain/money/payment-batch.ts';
import type { Outcome } from '../../domain/outcome.ts';
import type { ServiceContext } from '../context.ts';
import type { CommandAnswers } from './commands/answers.ts';
import { type IdempotencyRequest, submitCommand } from './idempotency.ts';

export type { RequestApprovalData, SendPaymentData } from '../../domain/money/payment-batch.ts';

/** The API key a tool call arrived with: it decides the wallet, never a parameter. */
export interface AgentKeyRef {
  id: string;
  walletId: string;
  userId: string;
}

export interface PaymentRequest {
  key: AgentKeyRef;
  /** Lower-case address. */
  toAddress: string;
  amountMicros: bigint;
  memo: string | null;
  reason: string | null;
  idempotency: IdempotencyRequest | null;
}

export interface PaymentService {
  sendPayment(request: PaymentRequest): Promise<Outcome<SendPaymentData>>;
  requestApproval(request: PaymentRequest): Promise<Outcome<RequestApprovalData>>;
}

/** Refuses (503) a payout the rail cannot make now, before anything is debited; null on the sandbox rail. */
export type PayoutGate = ((toAddress: string, amountMicros: bigint) => Promise<void>) | null;

/** Bounded mode's gate (services/rail/evm.ts): a payment only the owners' account can pay waits for them. */
export interface PaymentOwners {
  waitFor(toAddress: string, amountMicros: bigint, what: 'payout' | 'payment'): Promise<OwnersWait | null>;
}

export function createPaymentService(
  ctx: ServiceContext,
  payoutGate: PayoutGate,
  owners: PaymentOwners | null = null,
): PaymentService {
  const { writer, clock } = ctx;
  /** A payout the owners must pay waits for them; any other the rail cannot make now is refused (503). */
  async function gate(request: PaymentRequest): Promise<OwnersWait | null> {
    const wait =
      owners === null ? null : await owners.waitFor(request.toAddress, request.amountMicros, 'payout');
    if (wait === null && payoutGate !== null) await payoutGate(request.toAddress, request.amountMicros);
    return wait;
  }
  async function submit<K extends 'send' | 'request_approval'>(
    kind: K,
    request: PaymentRequest,
  ): Promise<Outcome<CommandAnswers[K]>> {
    const wait = kind === 'send' ? await gate(request) : null;
    const command: PaymentCommand & { kind: K } = {
      ...(wait === null ? {} : { owners: wait }),
      kind,
      keyId: request.key.id,
      walletId: request.key.walletId,
      toAddress: request.toAddress,
      amountMicros: request.amountMicros,
      memo: request.memo,
      reason: request.reason,
      idempotency: request.idempotency,
      nowMs: clock.nowMs(),
    };
    // The payer and, if it is a wallet of this service, the recipient: both are locked for the batch.
    const locks = { wallets: [request.key.walletId], addresses: [request.toAddress] };
    const result = await submitCommand(writer, command, locks);
    return result.outcome;
  }
  return {
    sendPayment: (request) => submit('send', request),
    requestApproval: (request) => submit('request_approval', request),
  };
}
