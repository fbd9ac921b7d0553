import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';
import { deliveryView, endpointParams } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/webhooks/:id/deliveries',
  auth: 'user',
  role: 'viewer',
  summary: "A webhook endpoint's delivery log",
  description: 'Every event queued for the endpoint, newest first, with its attempts and the last answer.',
  tags: ['webhooks'],
  params: endpointParams,
  query: paginationQuery,
  response: paginated(deliveryView),
  handler: async ({ request, params, query, services }) => {
    const { items, total } = await services.webhooks.deliveries(
      currentUser(request).tenantId,
      params.id,
      query,
    );
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
