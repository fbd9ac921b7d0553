import { z } from 'zod';
import { requestMeta } from '../../http/auth-hooks.ts';
import { countWrongGuess } from '../../http/rate-limit.ts';
import { defineRoute } from '../../http/route.ts';
import { authView } from '../views.ts';

export const CODE_LENGTH_MAX = 64;
export const codeSchema = z.string().trim().min(1).max(CODE_LENGTH_MAX);

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/login/mfa',
  auth: 'none',
  summary: 'Finish a login with a second factor',
  description:
    'The mfaToken of a login that answered MFA_REQUIRED and a TOTP code (accepted once) or a recovery code ' +
    '(once, ever). A wrong code is 401 INVALID_CREDENTIALS and counts in `login_account`; five wrong codes ' +
    'end the mfaToken (401 UNAUTHORIZED: log in again).',
  tags: ['auth'],
  body: z.strictObject({ mfaToken: z.string().min(1).max(128), code: codeSchema }),
  response: authView,
  handler: async ({ body, request, services }) => ({
    data: await services.auth.loginWithCode(
      body.mfaToken,
      body.code,
      requestMeta(request),
      countWrongGuess(services.limiter),
    ),
  }),
});
