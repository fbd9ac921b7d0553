import { z } from 'zod';
import { currentUser, requestMeta } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';

export default defineRoute({
  method: 'DELETE',
  url: '/api/v1/auth/mfa/totp',
  auth: 'user',
  role: 'viewer',
  stepUp: 'always',
  summary: 'Remove TOTP',
  description:
    'Needs step-up. With no factor left the recovery codes go too. Sends `security.factor_removed`. 404 when ' +
    'TOTP is not active.',
  tags: ['auth'],
  response: z.object({ id: z.literal('totp'), deleted: z.literal(true) }),
  handler: async ({ request, services }) => {
    await services.mfa.removeTotp(currentUser(request).userId, requestMeta(request));
    return { data: { id: 'totp' as const, deleted: true as const } };
  },
});
