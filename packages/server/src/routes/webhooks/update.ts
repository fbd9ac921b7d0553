import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { endpointInput, endpointParams, endpointView } from './schemas.ts';

export default defineRoute({
  method: 'PATCH',
  url: '/api/v1/webhooks/:id',
  auth: 'user',
  role: 'admin',
  stepUp: 'withFactor',
  summary: 'Change a webhook endpoint',
  tags: ['webhooks'],
  params: endpointParams,
  body: z.strictObject({ ...endpointInput, url: endpointInput.url.optional() }),
  response: endpointView,
  handler: async ({ request, params, body, services }) => ({
    data: await services.webhooks.update(currentUser(request).tenantId, params.id, body),
  }),
});
