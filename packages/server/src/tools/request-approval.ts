import { z } from 'zod';
import { HUMAN_TEXT_RULE, memoSchema } from '../http/schemas.ts';
import type { ToolDefinition } from './definition.ts';
import { optionalParam } from './optional-param.ts';
import { requestApprovalOutput } from './outputs.ts';
import { paymentInputShape, paymentRequest } from './payment-input.ts';

const input = z.strictObject({
  ...paymentInputShape,
  reason: optionalParam(memoSchema).describe(
    `why the agent needs this payment, shown to the owner: ${HUMAN_TEXT_RULE}`,
  ),
});

export const requestApprovalTool: ToolDefinition<z.output<typeof input>> = {
  name: 'request_approval',
  scope: 'write',
  description:
    'Ask the wallet owner to approve a payment the policies would not allow on their own. The amount is held ' +
    '(it cannot be spent twice) until the owner approves, rejects, or the request expires. The answer lists ' +
    'no decision yet: check get_tx_history for the outcome.',
  input,
  output: requestApprovalOutput,
  run({ key, input: params, idempotencyKey, services }) {
    return services.payments.requestApproval(paymentRequest('request_approval', key, params, idempotencyKey));
  },
};
