import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { countWrongGuess, refuseWhileLockedOut } from '../../http/rate-limit.ts';
import { defineRoute } from '../../http/route.ts';
import { timestamp } from '../views.ts';
import { codeSchema } from './login-mfa.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/step-up',
  auth: 'user',
  summary: 'Prove presence again',
  description:
    'Renews the session’s proof of presence, which sensitive operations need no older than ' +
    'STEP_UP_MAX_AGE_SECONDS (else 403 STEP_UP_REQUIRED). `{code}` (TOTP or recovery code) when a second ' +
    'factor is active — the password alone is then not enough — else `{password}`. A wrong one is 401 ' +
    'INVALID_CREDENTIALS and counts in the account’s `login_account` bucket; while it is full, 429.',
  tags: ['auth'],
  body: z
    .strictObject({ password: z.string().min(1).max(1024).optional(), code: codeSchema.optional() })
    .refine((b) => (b.password === undefined) !== (b.code === undefined), {
      message: 'give exactly one of password and code',
    }),
  response: z.object({ steppedUpAt: timestamp }),
  handler: async ({ body, request, services }) => {
    const user = currentUser(request);
    await refuseWhileLockedOut(services.limiter, await services.auth.emailOf(user.userId));
    return { data: await services.auth.stepUp(user, body, countWrongGuess(services.limiter)) };
  },
});
