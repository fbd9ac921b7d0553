import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { passkeyView } from './register.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/auth/passkeys',
  auth: 'user',
  role: 'viewer',
  summary: 'Your passkeys',
  description: 'Newest first: label, when added, when last used.',
  tags: ['auth'],
  response: z.object({ items: z.array(passkeyView) }),
  handler: async ({ request, services }) => ({
    data: await services.passkeys.list(currentUser(request).userId),
  }),
});
