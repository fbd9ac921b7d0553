import { z } from 'zod';
import { currentUser, requestMeta } from '../../../http/auth-hooks.ts';
import { countWrongGuess, refuseWhileLockedOut } from '../../../http/rate-limit.ts';
import { defineRoute } from '../../../http/route.ts';
import { passwordSchema } from '../../../http/schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/password',
  auth: 'user',
  role: 'viewer',
  stepUp: 'always',
  summary: 'Change your password',
  description:
    'Needs step-up and the current password (a wrong one is 401 INVALID_CREDENTIALS, counted in ' +
    '`login_account`). Every other session ends at once; this one stays. Sends `security.password_changed`.',
  tags: ['auth'],
  body: z.strictObject({ currentPassword: z.string().min(1).max(1024), newPassword: passwordSchema }),
  response: z.object({ passwordChanged: z.literal(true), endedSessions: z.number().int() }),
  handler: async ({ body, request, services }) => {
    const user = currentUser(request);
    await refuseWhileLockedOut(services.limiter, await services.auth.emailOf(user.userId));
    const { endedSessions } = await services.auth.changePassword(
      user,
      body,
      requestMeta(request),
      countWrongGuess(services.limiter),
    );
    return { data: { passwordChanged: true as const, endedSessions } };
  },
});
