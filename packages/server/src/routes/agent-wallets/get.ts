import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { walletIdParams } from '../../http/schemas.ts';
import { agentWalletView } from '../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets/:walletId',
  auth: 'user',
  role: 'viewer',
  summary: 'Get an agent wallet',
  tags: ['agent-wallets'],
  params: walletIdParams,
  response: agentWalletView,
  handler: async ({ request, params, services }) => {
    const row = await services.wallets.agent(currentUser(request).tenantId, params.walletId);
    return { data: await services.agentWalletView(row) };
  },
});
