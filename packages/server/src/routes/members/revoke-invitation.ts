import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { memberParams } from './schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/members/invitations/:id',
  auth: 'user',
  role: 'owner',
  summary: 'Revoke an open invitation',
  description:
    'Its token is refused from now on. Answers `{id, deleted: true}` (and `revoked: true`, as before). An ' +
    'accepted, revoked or unknown invitation is a 404.',
  tags: ['members'],
  params: memberParams,
  response: z.object({ id: z.string(), deleted: z.literal(true), revoked: z.literal(true) }),
  handler: async ({ request, params, services }) => {
    await services.organizations.revokeInvitation(currentUser(request), params.id);
    return { data: { id: params.id, deleted: true as const, revoked: true as const } };
  },
});
