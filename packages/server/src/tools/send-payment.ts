import { z } from 'zod';
import type { ToolDefinition } from './definition.ts';
import { sendPaymentOutput } from './outputs.ts';
import { paymentInputShape, paymentRequest } from './payment-input.ts';

const input = z.strictObject(paymentInputShape);

export const sendPaymentTool: ToolDefinition<z.output<typeof input>> = {
  name: 'send_payment',
  scope: 'write',
  description:
    'Pay USDC from this agent wallet to an address. Spending policies are checked first: a denial answers ' +
    'POLICY_DENIED listing every violated policy; a payment above an approval threshold is held as "pending" ' +
    'until the owner approves. Pass an idempotencyKey to retry safely.',
  input,
  output: sendPaymentOutput,
  run({ key, input: params, idempotencyKey, services }) {
    return services.payments.sendPayment(paymentRequest('send_payment', key, params, idempotencyKey));
  },
};
