import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery, walletIdParams } from '../../http/schemas.ts';
import { policyView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets/:walletId/policies',
  auth: 'user',
  role: 'viewer',
  summary: "List an agent wallet's policies",
  description: 'Active and paused policies, newest first.',
  tags: ['policies'],
  params: walletIdParams,
  query: paginationQuery,
  response: paginated(policyView),
  handler: async ({ request, params, query, services }) => {
    const { items, total } = await services.policies.list(
      currentUser(request).tenantId,
      params.walletId,
      query,
    );
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
