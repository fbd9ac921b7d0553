import { z } from 'zod';
import { currentUser, requestMeta } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { idSchema } from '../../../http/schemas.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/auth/passkeys/:id',
  auth: 'user',
  role: 'viewer',
  stepUp: 'always',
  summary: 'Remove a passkey',
  description: 'Needs step-up. Sends `security.factor_removed`. Another user’s passkey is 404.',
  tags: ['auth'],
  params: z.strictObject({ id: idSchema }),
  response: z.object({ id: z.string(), deleted: z.literal(true) }),
  handler: async ({ request, params, services }) => ({
    data: await services.passkeys.remove(currentUser(request).userId, params.id, requestMeta(request)),
  }),
});
