import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/auth/mfa',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  summary: 'Your second factors',
  description:
    'Whether TOTP is active, how many passkeys are registered, how many recovery codes are unused.',
  tags: ['auth'],
  response: z.object({ totp: z.boolean(), passkeys: z.number().int(), recoveryCodesLeft: z.number().int() }),
  handler: async ({ request, services }) => ({
    data: await services.mfa.status(currentUser(request).userId),
  }),
});
