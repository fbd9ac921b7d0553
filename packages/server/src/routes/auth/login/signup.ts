import { z } from 'zod';
import { requestMeta } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { emailSchema, passwordSchema } from '../../../http/schemas.ts';
import { authView } from '../../../http/views.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/signup',
  auth: 'none',
  summary: 'Create an account',
  description:
    'Creates a user, their organization (they are its owner) and its master wallet, or with invitationToken joins ' +
    'the inviting organization, and returns a session token (JWT, 7 days). An email that already has a login ' +
    'is 409 EMAIL_TAKEN, with or without an invitation (one organization per login). Emails are trimmed and ' +
    'lower-cased. A password is 8-128 characters (code points), not only spaces, without control characters, and ' +
    'hard enough to guess (a zxcvbn score of at least 3 of 4; a refusal says why and how to do better); it is ' +
    'stored only as an argon2id hash.',
  tags: ['auth'],
  body: z.strictObject({
    email: emailSchema,
    password: passwordSchema,
    invitationToken: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('joins the organization that invited this email, with the role it named'),
  }),
  response: authView,
  successStatus: 201,
  handler: async ({ body, request, services }) => ({
    data: await services.auth.signup(body.email, body.password, requestMeta(request), body.invitationToken),
  }),
});
