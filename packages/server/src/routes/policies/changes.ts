import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery, walletIdParams } from '../../http/schemas.ts';
import { policyView } from './schemas.ts';

const policyChangeView = z.object({
  id: z.string(),
  policyId: z.string(),
  action: z.enum(['created', 'updated', 'paused', 'resumed', 'deleted']),
  actor: z.string().describe('Who changed it: `user:<id>` for the owner.'),
  before: policyView.nullable().describe('The policy before the change; null for created.'),
  after: policyView.nullable().describe('The policy after the change; null for deleted.'),
  createdAt: z.string(),
});

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets/:walletId/policies/changes',
  auth: 'user',
  role: 'viewer',
  summary: "An agent wallet's policy audit trail",
  description:
    'Every policy created, updated, paused, resumed or deleted, with who and when and the policy before and ' +
    'after, newest first. Recorded in the same database transaction as the change.',
  tags: ['policies'],
  params: walletIdParams,
  query: paginationQuery,
  response: paginated(policyChangeView),
  handler: async ({ request, params, query, services }) => {
    const { items, total } = await services.policies.changes(
      currentUser(request).tenantId,
      params.walletId,
      query,
    );
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
