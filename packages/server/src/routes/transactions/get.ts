import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { idSchema } from '../../http/schemas.ts';
import { transactionView } from '../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets/:walletId/transactions/:transactionId',
  auth: 'user',
  role: 'viewer',
  summary: 'One transaction with its audit trail',
  description: 'Every state change of the transaction, with who made it (user or API key) and when.',
  tags: ['transactions'],
  params: z.strictObject({ walletId: idSchema, transactionId: idSchema }),
  response: transactionView.extend({
    events: z.array(
      z.object({
        status: transactionView.shape.status,
        actor: z
          .string()
          .describe(
            '"user:<id>", "key:<id>", "system", "chain", or "external" (another account paid this wallet)',
          ),
        note: z.string().nullable(),
        at: z.string(),
      }),
    ),
  }),
  handler: async ({ request, params, services }) => {
    const tenantId = currentUser(request).tenantId;
    return { data: await services.transactions.one(tenantId, params.walletId, params.transactionId) };
  },
});
