import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { withdrawalAddressView } from './withdrawal-schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/withdrawal-addresses',
  auth: 'user',
  role: 'viewer',
  summary: 'The withdrawal address book',
  description: 'Newest first (at most 100), each pending or active as of now.',
  tags: ['wallet'],
  response: z.object({ items: z.array(withdrawalAddressView) }),
  handler: async ({ request, services }) => ({
    data: await services.withdrawals.listAddresses(currentUser(request).tenantId),
  }),
});
