import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';
import { agentWalletView } from '../views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets',
  auth: 'user',
  summary: 'List agent wallets',
  description: 'Newest first, with balances and remaining spending caps.',
  tags: ['agent-wallets'],
  query: paginationQuery,
  response: paginated(agentWalletView),
  handler: async ({ request, query, services }) => {
    const { rows, total } = await services.wallets.listAgents(currentUser(request).userId, query);
    const items = await Promise.all(rows.map((row) => services.agentWalletView(row)));
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
