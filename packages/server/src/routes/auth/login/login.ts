import { z } from 'zod';
import { requestMeta } from '../../../http/auth-hooks.ts';
import { limitFailedLogins } from '../../../http/rate-limit.ts';
import { defineRoute } from '../../../http/route.ts';
import { emailSchema } from '../../../http/schemas.ts';
import { authView } from '../../../http/views.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/login',
  auth: 'none',
  summary: 'Log in',
  description:
    'A wrong email and a wrong password get the same 401 INVALID_CREDENTIALS, in the same time. ' +
    'Failed attempts also count per account (bucket `login_account`, 10 per 15 minutes by default), whatever ' +
    'the IP: past it that email answers 429 RATE_LIMITED with Retry-After — except that the right password of ' +
    'an account with a second factor still answers MFA_REQUIRED (the factor is what guessing cannot pass). ' +
    'With a factor active the right password answers 401 MFA_REQUIRED with `error.mfaToken` (single use, 5 ' +
    'minutes) and `error.methods`; finish with POST /auth/login/mfa.',
  tags: ['auth'],
  // The password is not length-checked here: a login must not reveal the password policy's edges.
  body: z.strictObject({ email: emailSchema, password: z.string().min(1).max(1024) }),
  response: authView,
  handler: async ({ body, request, services }) => ({
    data: await limitFailedLogins(services.limiter, body.email, (lockedOut) =>
      services.auth.login(body.email, body.password, requestMeta(request), lockedOut),
    ),
  }),
});
