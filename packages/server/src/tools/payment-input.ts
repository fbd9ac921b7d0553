import {
  addressSchema,
  amountSchema,
  HUMAN_TEXT_RULE,
  idempotencyKeySchema,
  memoSchema,
} from '../http/schemas.ts';
import type { AgentKey } from '../services/keys/keys.ts';
import { idempotencyClaim, keyScope } from '../services/money/idempotency.ts';
import { optionalParam } from './optional-param.ts';

export const paymentInputShape = {
  toAddress: addressSchema.describe(
    'recipient EVM address (0x + 40 hex; mixed case must carry its EIP-55 checksum)',
  ),
  amount: amountSchema,
  memo: optionalParam(memoSchema).describe(`free text stored with the payment: ${HUMAN_TEXT_RULE}`),
  idempotencyKey: optionalParam(idempotencyKeySchema).describe(
    'retrying with the same key returns the first result instead of paying twice',
  ),
};

export interface PaymentParams {
  toAddress: string;
  amount: bigint;
  memo?: string | undefined;
  reason?: string | undefined;
}

/**
 * The payment request a write tool hands to the payment service. Idempotency keys are scoped to the key's
 * wallet; the same key with the same normalised params (every param, memo and reason included, and the tool
 * itself) is a replay, anything else a conflict.
 */
export function paymentRequest(
  tool: string,
  key: AgentKey,
  params: PaymentParams,
  idempotencyKey: string | null,
) {
  return {
    key,
    toAddress: params.toAddress,
    amountMicros: params.amount,
    memo: params.memo ?? null,
    reason: params.reason ?? null,
    idempotency: idempotencyClaim(keyScope.wallet(key.walletId), idempotencyKey, {
      tool,
      toAddress: params.toAddress,
      amountMicros: params.amount.toString(),
      memo: params.memo ?? null,
      reason: params.reason ?? null,
    }),
  };
}
