import { z } from 'zod';
import { success } from '../domain/outcome.ts';
import { addressSchema, amountSchema } from '../http/schemas.ts';
import type { ToolDefinition } from './registry.ts';

const input = z.strictObject({
  toAddress: addressSchema.describe('recipient EVM address (0x + 40 hex)'),
  amount: amountSchema,
});

export const checkPaymentTool: ToolDefinition<z.output<typeof input>> = {
  name: 'check_payment',
  scope: 'read',
  description:
    'Dry run of send_payment: whether a payment of this amount to this address would go through now ' +
    '(allowed), would wait for the owner (requiresApproval), or would be denied — with every violated policy ' +
    '(violations: policyId, policyType, reason, limit, attempted, window), the balance after, and the room left ' +
    'under the daily and total caps. Nothing is paid, held or stored.',
  input,
  async run({ key, input: params, services }) {
    return success(
      await services.checkPayment({
        walletId: key.walletId,
        actor: key.id,
        toAddress: params.toAddress,
        amountMicros: params.amount,
        nowMs: services.clock.nowMs(),
      }),
    );
  },
};
