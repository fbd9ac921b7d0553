import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { requestMeta } from '../../../http/auth-hooks.ts';
import { guessLimits } from '../../../http/rate-limit.ts';
import { defineRoute } from '../../../http/route.ts';
import { oneOfBodies } from '../../../http/schemas.ts';
import { authView } from '../../../http/views.ts';
import { authenticationResponseSchema } from '../passkeys/schemas.ts';

export const CODE_LENGTH_MAX = 64;
// The length is checked before trimming, so the document's maxLength bounds what a client sends.
export const codeSchema = z
  .string()
  .max(CODE_LENGTH_MAX)
  .trim()
  .min(1)
  .meta({ pattern: '\\S', description: 'a TOTP or recovery code; surrounding whitespace is trimmed' });
export const mfaTokenSchema = z.string().min(1).max(128);

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/login/mfa',
  auth: 'none',
  summary: 'Finish a login with a second factor',
  description:
    'The mfaToken of a login that answered MFA_REQUIRED and a TOTP code (accepted once) or a recovery code ' +
    '(once, ever) as `code`, or a passkey’s answer as `passkey` (after POST /auth/passkeys/authentication-options). ' +
    'A wrong one is 401 INVALID_CREDENTIALS and counts in `login_account`; five wrong ones end the mfaToken ' +
    '(401 UNAUTHORIZED: log in again). Codes are limited per account (`mfa_code`, 10 wrong in 15 minutes, whatever ' +
    'the mfaToken or IP): past it every code is 429 RATE_LIMITED with Retry-After, a right one too; a passkey is not.',
  tags: ['auth'],
  body: z
    .strictObject({
      mfaToken: mfaTokenSchema,
      code: codeSchema.optional(),
      passkey: authenticationResponseSchema.optional(),
    })
    .refine((b) => (b.code === undefined) !== (b.passkey === undefined), {
      message: 'give exactly one of code and passkey',
    }),
  documentedBody: oneOfBodies(
    { mfaToken: mfaTokenSchema },
    { code: codeSchema, passkey: authenticationResponseSchema },
    'The mfaToken and exactly one factor: {mfaToken, code} or {mfaToken, passkey}.',
  ),
  response: authView,
  handler: async ({ body, request, services }) => ({
    data: await services.auth.loginWithFactor(
      body.mfaToken,
      body.code === undefined
        ? { passkey: body.passkey as unknown as AuthenticationResponseJSON }
        : { code: body.code },
      requestMeta(request),
      guessLimits(services.limiter),
    ),
  }),
});
