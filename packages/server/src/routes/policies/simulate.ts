import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { addressSchema, amountSchema, walletIdParams } from '../../http/schemas.ts';
import { violationView } from '../../http/views.ts';

export const checkPaymentView = z.object({
  allowed: z
    .boolean()
    .describe('Whether send_payment would go through now (completed, processing or pending).'),
  requiresApproval: z.boolean().describe('Whether it would wait for the owner’s approval.'),
  violations: z.array(violationView),
  balanceAfter: z.string(),
  dailyCapRemaining: z.string().nullable(),
  totalCapRemaining: z.string().nullable(),
  periodCapRemaining: z
    .string()
    .optional()
    .describe('Room left under the tightest calendar budget (spend_cap_period); only when one is set.'),
  periodCapResetsAt: z.string().optional().describe('When that budget’s period ends and it resets.'),
  refusal: z
    .object({ code: z.enum(['WALLET_FROZEN', 'INSUFFICIENT_BALANCE']), message: z.string() })
    .nullable()
    .describe('Why it would not go through without a policy denying it.'),
});

export default defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets/:walletId/policies/simulate',
  auth: 'user',
  role: 'viewer',
  audited: false,
  summary: 'Would this payment pass the policies?',
  description:
    'What check_payment answers for this agent wallet now: every violated policy with its limit and what the ' +
    'payment would bring it to, whether it would need approval, the balance after. Nothing is paid, held or stored.',
  tags: ['policies'],
  params: walletIdParams,
  body: z.strictObject({ toAddress: addressSchema, amount: amountSchema }),
  response: checkPaymentView,
  handler: async ({ request, params, body, services }) => ({
    data: await services.simulatePayment(currentUser(request).tenantId, params.walletId, {
      toAddress: body.toAddress,
      amountMicros: body.amount,
    }),
  }),
});
