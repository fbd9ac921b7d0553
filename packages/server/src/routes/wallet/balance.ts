import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { masterWalletView } from '../../services/wallets/wallet-views.ts';

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
    const view = await masterWalletView(services.store.db, row);
    return { data: { balance: view.balance, currency: view.currency } };
  },
});
