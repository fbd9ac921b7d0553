import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';
import { withdrawalView } from './withdrawal-schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/withdrawals',
  auth: 'user',
  role: 'viewer',
  summary: 'Withdrawals from the master wallet',
  description: 'Newest first, with their status as it stands now.',
  tags: ['wallet'],
  query: paginationQuery,
  response: paginated(withdrawalView),
  handler: async ({ request, query, services }) => ({
    data: await services.withdrawals.list(currentUser(request).tenantId, query),
  }),
});
