import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { deliveryParams, deliveryView } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver',
  auth: 'user',
  role: 'admin',
  summary: 'Send a delivery again',
  description: 'Queues the event for the endpoint again now (same event id: receivers deduplicate on it).',
  tags: ['webhooks'],
  params: deliveryParams,
  response: deliveryView,
  handler: async ({ request, params, services }) => ({
    data: await services.webhooks.redeliver(currentUser(request).tenantId, params.id, params.deliveryId),
  }),
});
