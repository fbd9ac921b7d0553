import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { noBody } from '../../../http/schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/sessions/end-others',
  auth: 'user',
  role: 'viewer',
  summary: 'Log out everywhere else',
  description: 'Ends every session of the account but this one, at once on every instance.',
  tags: ['auth'],
  body: noBody,
  response: z.object({ ended: z.number().int().describe('how many sessions ended') }),
  handler: async ({ request, services }) => ({
    data: { ended: await services.auth.endOtherSessions(currentUser(request)) },
  }),
});
