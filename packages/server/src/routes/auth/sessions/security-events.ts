import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { paginated, paginationQuery } from '../../../http/schemas.ts';
import { timestamp } from '../../../http/views.ts';

export const securityEventView = z.object({
  id: z.string(),
  type: z.enum([
    'security.password_changed',
    'security.factor_added',
    'security.factor_removed',
    'security.member_invited',
    'security.member_role_changed',
    'security.member_removed',
  ]),
  detail: z.record(z.string(), z.string()),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: timestamp,
});

export default defineRoute({
  method: 'GET',
  url: '/api/v1/auth/security-events',
  auth: 'user',
  role: 'viewer',
  summary: 'Recent security events',
  description:
    'Password changes and factors added or removed, changes of your role in the organization and the ' +
    'invitations of owners and admins you sent, newest first, with where they came from.',
  tags: ['auth'],
  query: paginationQuery,
  response: paginated(securityEventView),
  handler: async ({ request, query, services }) => ({
    data: await services.securityEvents.list(currentUser(request).userId, query),
  }),
});
