import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';
import { endpointView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/webhooks',
  auth: 'user',
  role: 'viewer',
  summary: 'List webhook endpoints',
  description: 'Newest first. Secrets are never listed.',
  tags: ['webhooks'],
  query: paginationQuery,
  response: paginated(endpointView),
  handler: async ({ request, query, services }) => {
    const { items, total } = await services.webhooks.list(currentUser(request).tenantId, query);
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
