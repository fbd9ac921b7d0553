import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';
import { agentWalletView } from '../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets',
  auth: 'user',
  role: 'viewer',
  summary: 'List agent wallets',
  description:
    'Newest first, with balances, remaining spending caps and pending approvals per wallet; `pendingApprovals` ' +
    'at the top counts them across all wallets.',
  tags: ['agent-wallets'],
  query: paginationQuery,
  response: paginated(agentWalletView).extend({
    pendingApprovals: z.number().int().describe('payments awaiting approval across all agent wallets'),
  }),
  handler: async ({ request, query, services }) => {
    const userId = currentUser(request).tenantId;
    const { rows, total } = await services.wallets.listAgents(userId, query);
    const { items, pendingOfUser: pendingApprovals } = await services.agentWalletViews(rows, userId);
    return { data: { items, total, page: query.page, limit: query.limit, pendingApprovals } };
  },
});
