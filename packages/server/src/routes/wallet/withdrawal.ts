import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { idSchema } from '../../http/schemas.ts';
import { withdrawalView } from './withdrawal-schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/withdrawals/:id',
  auth: 'user',
  role: 'viewer',
  summary: 'One withdrawal',
  description: 'Another user’s withdrawal is 404.',
  tags: ['wallet'],
  params: z.strictObject({ id: idSchema }),
  response: withdrawalView,
  handler: async ({ request, params, services }) => ({
    data: await services.withdrawals.get(currentUser(request).tenantId, params.id),
  }),
});
