import { z } from 'zod';
import { defineRoute } from '../../http/route.ts';
import { emailSchema } from '../../http/schemas.ts';
import { authView } from '../views.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/login',
  auth: 'none',
  summary: 'Log in',
  description: 'A wrong email and a wrong password get the same 401 INVALID_CREDENTIALS, in the same time.',
  tags: ['auth'],
  // The password is not length-checked here: a login must not reveal the password policy's edges.
  body: z.strictObject({ email: emailSchema, password: z.string().min(1).max(1024) }),
  response: authView,
  handler: async ({ body, services }) => ({ data: await services.auth.login(body.email, body.password) }),
});
