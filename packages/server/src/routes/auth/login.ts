import { z } from 'zod';
import { limitFailedLogins } from '../../http/rate-limit.ts';
import { defineRoute } from '../../http/route.ts';
import { emailSchema } from '../../http/schemas.ts';
import { authView } from '../views.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/login',
  auth: 'none',
  summary: 'Log in',
  description:
    'A wrong email and a wrong password get the same 401 INVALID_CREDENTIALS, in the same time. ' +
    'Failed attempts also count per account (bucket `login_account`, 10 per 15 minutes by default), whatever ' +
    'the IP: past it that email answers 429 RATE_LIMITED with Retry-After.',
  tags: ['auth'],
  // The password is not length-checked here: a login must not reveal the password policy's edges.
  body: z.strictObject({ email: emailSchema, password: z.string().min(1).max(1024) }),
  response: authView,
  handler: async ({ body, services }) => ({
    data: await limitFailedLogins(services.limiter, body.email, () =>
      services.auth.login(body.email, body.password),
    ),
  }),
});
