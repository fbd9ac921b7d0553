import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { policyParams } from './schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/agent-wallets/:walletId/policies/:policyId',
  auth: 'user',
  role: 'admin',
  stepUp: 'withFactor',
  summary: 'Delete a policy',
  tags: ['policies'],
  params: policyParams,
  response: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async ({ request, params, services }) => ({
    data: await services.policies.remove(currentUser(request).tenantId, params.walletId, params.policyId),
  }),
});
