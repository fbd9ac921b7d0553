import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery, walletIdParams } from '../../http/schemas.ts';
import { keyView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets/:walletId/keys',
  auth: 'user',
  role: 'viewer',
  summary: "List an agent wallet's API keys",
  description: 'Prefix and metadata only: never the key or its hash. Newest first.',
  tags: ['keys'],
  params: walletIdParams,
  query: paginationQuery,
  response: paginated(keyView),
  handler: async ({ request, params, query, services }) => {
    const { items, total } = await services.keys.list(currentUser(request).tenantId, params.walletId, query);
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
