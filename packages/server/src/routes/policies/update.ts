import { z } from 'zod';
import { tightens } from '../../domain/policies/policies.ts';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { ruleOf, storedParams } from '../../services/policies/policies.ts';
import { paramsDocumentation, parsePolicyParams, policyParams, policyView } from './schemas.ts';

export default defineRoute({
  method: 'PATCH',
  url: '/api/v1/agent-wallets/:walletId/policies/:policyId',
  auth: 'user',
  role: 'admin',
  stepUp: 'withFactor',
  // Pausing, or new params that do not provably tighten the policy; resuming and tightening need nothing.
  stepUpWhen: async ({ request, params, body, services }) => {
    if (body.active === false) return 'withFactor';
    if (body.params === undefined) return null;
    const existing = await services.policies.get(
      currentUser(request).tenantId,
      params.walletId,
      params.policyId,
    );
    const after = parsePolicyParams(existing.type, body.params);
    const tighter = tightens(
      ruleOf(existing.type, storedParams(existing.params)),
      ruleOf(existing.type, storedParams(after)),
    );
    return tighter ? null : 'withFactor';
  },
  summary: 'Change or pause a policy',
  description:
    'New params (validated against the policy’s type, which cannot change: params of another type are 400) and/or ' +
    'active: false to pause.',
  tags: ['policies'],
  params: policyParams,
  body: z.strictObject({ params: paramsDocumentation.optional(), active: z.boolean().optional() }),
  response: policyView,
  handler: async ({ request, params, body, services }) => {
    const userId = currentUser(request).tenantId;
    const existing = await services.policies.get(userId, params.walletId, params.policyId);
    const change = {
      ...(body.params === undefined ? {} : { params: parsePolicyParams(existing.type, body.params) }),
      ...(body.active === undefined ? {} : { active: body.active }),
    };
    return { data: await services.policies.update(userId, params.walletId, params.policyId, change) };
  },
});
