import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { memberView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/members',
  auth: 'user',
  role: 'viewer',
  summary: 'List the members of the organization',
  description: 'Oldest first, with their role and whether they have a second factor.',
  tags: ['members'],
  response: z.object({ items: z.array(memberView) }),
  handler: async ({ request, services }) => ({
    data: { items: await services.organizations.members(currentUser(request)) },
  }),
});
