import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { idSchema } from '../../http/schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/wallet/withdrawal-addresses/:id',
  auth: 'user',
  role: 'owner',
  summary: 'Remove a withdrawal address',
  description:
    'At once, with no delay and no step-up: removing an address only ever makes the account safer.',
  tags: ['wallet'],
  params: z.strictObject({ id: idSchema }),
  response: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async ({ request, params, services }) => ({
    data: await services.withdrawals.removeAddress(currentUser(request).tenantId, params.id),
  }),
});
