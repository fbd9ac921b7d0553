import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { userView } from '../../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/auth/me',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  summary: 'The current user',
  tags: ['auth'],
  response: z.object({ user: userView }),
  handler: async ({ request, services }) => ({
    data: { user: await services.auth.me(currentUser(request).userId) },
  }),
});
