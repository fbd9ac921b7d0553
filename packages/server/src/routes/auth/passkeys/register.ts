import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { currentUser, requestMeta } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { labelSchema } from '../../../http/schemas.ts';
import { timestamp } from '../../../http/views.ts';
import { PASSKEYS_PER_USER_MAX } from '../../../services/identity/passkeys.ts';
import { registrationResponseSchema } from './schemas.ts';

export const passkeyView = z.object({
  id: z.string(),
  label: z.string(),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable(),
});

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/passkeys',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  stepUp: 'always',
  summary: 'Register a passkey',
  description:
    'The browser’s answer to the registration options. From now on a login needs a second factor. Sends ' +
    '`security.factor_added`. A response that does not verify is 400; no live challenge is 409 INVALID_STATE. At ' +
    `most ${PASSKEYS_PER_USER_MAX} passkeys (past that, 400).`,
  tags: ['auth'],
  body: z.strictObject({ label: labelSchema, response: registrationResponseSchema }),
  response: passkeyView,
  successStatus: 201,
  handler: async ({ body, request, services }) => ({
    data: await services.passkeys.register(
      currentUser(request).userId,
      { label: body.label, response: body.response as unknown as RegistrationResponseJSON },
      requestMeta(request),
    ),
  }),
});
