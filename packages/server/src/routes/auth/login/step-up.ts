import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { guessLimits, refuseWhileLockedOut } from '../../../http/rate-limit.ts';
import { defineRoute } from '../../../http/route.ts';
import { oneOfBodies } from '../../../http/schemas.ts';
import { timestamp } from '../../../http/views.ts';
import { authenticationResponseSchema } from '../passkeys/schemas.ts';
import { codeSchema } from './login-mfa.ts';

/** The proofs of presence; a body holds exactly one. */
const PROOFS = {
  password: z.string().min(1).max(1024),
  code: codeSchema,
  passkey: authenticationResponseSchema,
};

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/step-up',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  summary: 'Prove presence again',
  description:
    'Renews the session’s proof of presence, which sensitive operations need no older than ' +
    'STEP_UP_MAX_AGE_SECONDS (else 403 STEP_UP_REQUIRED). `{code}` (TOTP or recovery code) or `{passkey}` ' +
    '(after POST /auth/step-up/passkey-options) when a second factor is active — the password alone is then ' +
    'not enough — else `{password}`. A wrong one is 401 ' +
    'INVALID_CREDENTIALS and counts in the account’s `login_account` bucket; while it is full, 429. A code is ' +
    'also judged under the account’s `mfa_code` limit (10 wrong in 15 minutes): past it, 429 even for a right one.',
  tags: ['auth'],
  body: z
    .strictObject({
      password: PROOFS.password.optional(),
      code: PROOFS.code.optional(),
      passkey: PROOFS.passkey.optional(),
    })
    .refine((b) => [b.password, b.code, b.passkey].filter((p) => p !== undefined).length === 1, {
      message: 'give exactly one of password, code and passkey',
    }),
  documentedBody: oneOfBodies({}, PROOFS, 'Exactly one proof of presence: {password}, {code} or {passkey}.'),
  response: z.object({ steppedUpAt: timestamp }),
  handler: async ({ body, request, services }) => {
    const user = currentUser(request);
    await refuseWhileLockedOut(services.limiter, await services.auth.emailOf(user.userId));
    const proof = { ...body, passkey: body.passkey as unknown as AuthenticationResponseJSON | undefined };
    return { data: await services.auth.stepUp(user, proof, guessLimits(services.limiter)) };
  },
});
