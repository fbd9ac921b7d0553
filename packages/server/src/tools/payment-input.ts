import { addressSchema, amountSchema, idempotencyKeySchema, memoSchema } from '../http/schemas.ts';
import { requestFingerprint } from '../services/idempotency.ts';

export const paymentInputShape = {
  toAddress: addressSchema.describe('recipient EVM address (0x + 40 hex)'),
  amount: amountSchema,
  memo: memoSchema.optional().describe('free text stored with the payment'),
  idempotencyKey: idempotencyKeySchema
    .optional()
    .describe('retrying with the same key returns the first result instead of paying twice'),
};

/** Same key + same normalised params = a replay; every param counts, memo and reason included. */
export function paymentFingerprint(
  tool: string,
  params: { toAddress: string; amount: bigint; memo?: string | undefined; reason?: string | undefined },
): string {
  return requestFingerprint({
    tool,
    toAddress: params.toAddress,
    amountMicros: params.amount.toString(),
    memo: params.memo ?? null,
    reason: params.reason ?? null,
  });
}
