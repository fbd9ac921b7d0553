// What each kind of money command answers when it succeeds: the data of its outcome, named once for every caller
// of submitCommand (services/money/idempotency.ts). A new kind does not compile until it is named here.
import type { ResolveData } from '../../../domain/money/approval-batch.ts';
import type { BatchCommand } from '../../../domain/money/batch.ts';
import type { DepositData } from '../../../domain/money/movement-batch.ts';
import type { RequestApprovalData, SendPaymentData } from '../../../domain/money/payment-batch.ts';
import type { WithdrawalData } from '../../../domain/money/withdrawal-batch.ts';
import type { MovementResult } from './movement.ts';

export interface CommandAnswers {
  send: SendPaymentData;
  request_approval: RequestApprovalData;
  x402: SendPaymentData;
  fund: MovementResult;
  withdraw: MovementResult;
  deposit: DepositData;
  master_withdrawal: WithdrawalData;
  approve: ResolveData;
  reject: ResolveData;
  expire: ResolveData;
}

/** The outcome data of a command of this kind. */
export type AnswerOf<C extends BatchCommand> = CommandAnswers[C['kind']];

/** Every kind has its answer, and nothing else is named: fails to compile when the two lists part. */
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const EVERY_KIND_ANSWERS: Exact<keyof CommandAnswers, BatchCommand['kind']> = true;
