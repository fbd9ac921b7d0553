import { z } from 'zod';
import { requestMeta } from '../../../http/auth-hooks.ts';
import { forgetFailedLogins } from '../../../http/rate-limit.ts';
import { defineRoute } from '../../../http/route.ts';
import { passwordSchema } from '../../../http/schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/password/reset',
  auth: 'none',
  summary: 'Set a new password with a reset link',
  description:
    'For a forgotten password: the operator runs `agent-wallet reset-password --email …`, which prints a link ' +
    '(`/reset-password#pwr_…`, single use, 1 hour; only the newest one of an account works) to hand to the ' +
    'person. No email carries it. Every session of the account ends; a second factor stays, so the next login ' +
    'still asks for it, and a login lock-out (`login_account`) ends. Sends `security.password_changed`. An ' +
    'unknown, used or expired link is 401 UNAUTHORIZED. ' +
    'Counted in the `login` bucket.',
  tags: ['auth'],
  body: z.strictObject({
    token: z.string().min(1).max(128).describe('the part of the link after #'),
    newPassword: passwordSchema,
  }),
  response: z.object({ passwordReset: z.literal(true), endedSessions: z.number().int() }),
  handler: async ({ body, request, services }) => {
    const reset = await services.auth.resetPasswordWithLink(
      body.token,
      body.newPassword,
      requestMeta(request),
    );
    await forgetFailedLogins(services.limiter, reset.email, (err) =>
      request.log.warn(
        { err },
        'the lock-out of a reset account could not be cleared; it runs out by itself',
      ),
    );
    return { data: { passwordReset: true as const, endedSessions: reset.endedSessions } };
  },
});
