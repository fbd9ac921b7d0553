import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { idSchema } from '../../http/schemas.ts';
import { alertView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/alerts',
  auth: 'user',
  role: 'viewer',
  summary: 'List alerts',
  description: 'Newest first; `?walletId=` for one wallet’s.',
  tags: ['alerts'],
  query: z.strictObject({ walletId: idSchema.optional() }),
  response: z.object({ items: z.array(alertView) }),
  handler: async ({ request, query, services }) => ({
    data: { items: await services.alerts.list(currentUser(request).tenantId, query.walletId) },
  }),
});
