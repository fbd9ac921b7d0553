import { z } from 'zod';
import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { noBody } from '../../../http/schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/mfa/totp',
  auth: 'user',
  role: 'viewer',
  mfaEnrolment: true,
  // Adding a factor needs presence, even the first: a stolen session must not enrol a factor of its own and
  // lock the owner out of their account.
  stepUp: 'always',
  summary: 'Start enrolling TOTP',
  description:
    'A new secret for an authenticator app (RFC 6238: SHA-1, 6 digits, 30 s) and its otpauth:// URL (render ' +
    'it as a QR code locally). Not active until POST /auth/mfa/totp/confirm; starting again replaces an ' +
    'unconfirmed secret. 409 INVALID_STATE while TOTP is active. Needs step-up.',
  tags: ['auth'],
  body: noBody,
  response: z.object({ secret: z.string().describe('base32; shown here only'), otpauthUrl: z.string() }),
  handler: async ({ request, services }) => ({
    data: await services.mfa.startTotp(currentUser(request).userId),
  }),
});
