import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { walletIdParams } from '../../http/schemas.ts';
import {
  newPolicyDocumentation,
  paramsDocumentation,
  parsePolicyParams,
  policyTypeSchema,
  policyView,
} from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets/:walletId/policies',
  auth: 'user',
  role: 'admin',
  summary: 'Add a spending policy',
  description:
    'Several policies may be active at once; a payment is checked against all of them and every violated one is ' +
    'reported. Caps are inclusive: reaching a cap exactly is allowed. The daily cap is a rolling 24 hours of ' +
    'completed, processing and held spending.',
  tags: ['policies'],
  params: walletIdParams,
  body: z.strictObject({ type: policyTypeSchema, params: paramsDocumentation }),
  documentedBody: newPolicyDocumentation,
  response: policyView,
  successStatus: 201,
  handler: async ({ request, params, body, services }) => {
    const parsed = parsePolicyParams(body.type, body.params);
    return {
      data: await services.policies.create(currentUser(request).tenantId, params.walletId, body.type, parsed),
    };
  },
});
