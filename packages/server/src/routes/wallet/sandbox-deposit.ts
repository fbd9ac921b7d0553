import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { amountSchema } from '../../http/schemas.ts';
import { depositView } from '../../http/views.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/wallet/sandbox/deposit',
  auth: 'user',
  role: 'admin',
  summary: 'Credit the master wallet with sandbox money',
  description: 'Exists only on a server whose rail is "sandbox": simulated money for trying the service.',
  tags: ['wallet', 'sandbox'],
  body: z.strictObject({ amount: amountSchema }),
  response: depositView.extend({ balance: z.string().describe('master wallet balance after the deposit') }),
  successStatus: 201,
  handler: async ({ request, body, services }) => ({
    data: await services.deposits.sandboxDeposit(currentUser(request).tenantId, body.amount),
  }),
});
