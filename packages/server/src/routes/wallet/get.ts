import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { masterWalletView } from '../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet',
  auth: 'user',
  role: 'viewer',
  summary: 'The master wallet',
  description: 'The wallet the user funds from outside and splits into agent wallets.',
  tags: ['wallet'],
  response: masterWalletView,
  handler: async ({ request, services }) => {
    const row = await services.wallets.master(currentUser(request).tenantId);
    return { data: await services.wallets.masterView(row) };
  },
});
