import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';
import { depositView } from '../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/deposits',
  auth: 'user',
  role: 'viewer',
  summary: 'Deposits into the master wallet',
  description:
    'Newest first. Sandbox deposits, and payments from other wallets of this service (rail "internal").',
  tags: ['wallet'],
  query: paginationQuery,
  response: paginated(depositView),
  handler: async ({ request, query, services }) => {
    const { items, total } = await services.deposits.list(currentUser(request).tenantId, query);
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
