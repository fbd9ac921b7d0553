import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { memberParams } from './schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/members/:id',
  auth: 'user',
  role: 'owner',
  stepUp: 'always',
  summary: 'Remove a member',
  description:
    'Their sessions end at once, on every instance; they can no longer log in. Answers `{id, deleted: true}` ' +
    '(and `removed: true`, as before). The last owner cannot be removed (409 INVALID_STATE).',
  tags: ['members'],
  params: memberParams,
  response: z.object({ id: z.string(), deleted: z.literal(true), removed: z.literal(true) }),
  handler: async ({ request, params, services }) => {
    const member = await services.organizations.remove(currentUser(request), params.id);
    return {
      data: { id: member.id, deleted: true as const, removed: true as const },
      audit: { before: { email: member.email, role: member.role } },
    };
  },
});
