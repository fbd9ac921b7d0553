import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { labelSchema, walletIdParams } from '../../http/schemas.ts';
import { agentWalletView } from '../../http/views.ts';

export default defineRoute({
  method: 'PATCH',
  url: '/api/v1/agent-wallets/:walletId',
  auth: 'user',
  role: 'admin',
  summary: 'Rename an agent wallet',
  tags: ['agent-wallets'],
  params: walletIdParams,
  body: z.strictObject({ label: labelSchema }),
  response: agentWalletView,
  handler: async ({ request, params, body, services }) => {
    const row = await services.wallets.rename(currentUser(request).tenantId, params.walletId, body.label);
    return { data: await services.agentWalletView(row) };
  },
});
