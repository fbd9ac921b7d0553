import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { alertParams } from './schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/alerts/:id',
  auth: 'user',
  role: 'admin',
  stepUp: 'always',
  summary: 'Delete an alert',
  tags: ['alerts'],
  params: alertParams,
  response: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async ({ request, params, services }) => ({
    data: await services.alerts.remove(currentUser(request).tenantId, params.id),
  }),
});
