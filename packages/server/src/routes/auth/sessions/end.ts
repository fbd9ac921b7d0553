import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { idSchema } from '../../../http/schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/auth/sessions/:id',
  auth: 'user',
  role: 'viewer',
  summary: 'End a session',
  description:
    'Its token is refused from the next request on, on every instance. Another user’s session, or one already ' +
    'ended, is 404.',
  tags: ['auth'],
  params: z.strictObject({ id: idSchema }),
  response: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async ({ request, params, services }) => {
    await services.auth.endSession(currentUser(request).userId, params.id);
    return { data: { id: params.id, deleted: true as const } };
  },
});
