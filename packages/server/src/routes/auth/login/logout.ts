import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { noBody } from '../../../http/schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/logout',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  summary: 'Log out',
  description: 'Ends the session: the token is refused from the next request on, on every instance.',
  tags: ['auth'],
  body: noBody,
  response: z.object({ loggedOut: z.literal(true) }),
  handler: async ({ request, services }) => {
    await services.auth.logout(currentUser(request).sessionId);
    return { data: { loggedOut: true as const } };
  },
});
