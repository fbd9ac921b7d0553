import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { endpointParams } from './schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/webhooks/:id',
  auth: 'user',
  role: 'admin',
  stepUp: 'always',
  summary: 'Delete a webhook endpoint',
  description: 'Its pending deliveries are dropped.',
  tags: ['webhooks'],
  params: endpointParams,
  response: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async ({ request, params, services }) => ({
    data: await services.webhooks.remove(currentUser(request).tenantId, params.id),
  }),
});
