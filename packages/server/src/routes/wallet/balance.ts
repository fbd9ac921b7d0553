import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/balance',
  auth: 'user',
  role: 'viewer',
  summary: 'The master wallet balance',
  tags: ['wallet'],
  response: z.object({ balance: z.string(), currency: z.literal('USDC') }),
  handler: async ({ request, services }) => {
    const row = await services.wallets.master(currentUser(request).tenantId);
    const view = await services.wallets.masterView(row);
    return { data: { balance: view.balance, currency: view.currency } };
  },
});
