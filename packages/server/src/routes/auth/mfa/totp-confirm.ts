import { z } from 'zod';
import { currentUser, requestMeta } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/mfa/totp/confirm',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  stepUp: 'always',
  summary: 'Confirm TOTP',
  description:
    'The first code from the authenticator app activates TOTP and returns ten recovery codes, shown here only ' +
    '(stored hashed; each works once, and replaces a lost authenticator at login or step-up). A code that does ' +
    'not match is 400. Sends `security.factor_added`. Needs step-up.',
  tags: ['auth'],
  body: z.strictObject({
    code: z
      .string()
      .trim()
      .regex(/^[0-9]{6}$/, { message: 'must be 6 digits' })
      .meta({ pattern: '^\\s*[0-9]{6}\\s*$', description: '6 digits; surrounding whitespace is trimmed' }),
  }),
  response: z.object({ recoveryCodes: z.array(z.string()).length(10) }),
  handler: async ({ body, request, services }) => ({
    data: await services.mfa.confirmTotp(currentUser(request).userId, body.code, requestMeta(request)),
  }),
});
