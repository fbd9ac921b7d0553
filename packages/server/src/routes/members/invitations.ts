import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { invitationView } from './schemas.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/members/invitations',
  auth: 'user',
  role: 'owner',
  summary: 'List open invitations',
  description: 'Neither accepted, revoked nor expired; newest first. Tokens are never listed.',
  tags: ['members'],
  response: z.object({ items: z.array(invitationView) }),
  handler: async ({ request, services }) => ({
    data: { items: await services.organizations.invitations(currentUser(request)) },
  }),
});
