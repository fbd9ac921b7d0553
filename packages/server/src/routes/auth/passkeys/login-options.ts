import { z } from 'zod';
import { defineRoute } from '../../../http/route.ts';
import { mfaTokenSchema } from '../login/login-mfa.ts';
import { webauthnOptionsView } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/passkeys/authentication-options',
  auth: 'none',
  summary: 'Passkey options for a login’s second step',
  description:
    'For the mfaToken of a login that answered MFA_REQUIRED: WebAuthn request options (with ' +
    '@simplewebauthn/browser: startAuthentication) allowing the account’s passkeys. Then POST /auth/login/mfa ' +
    '{mfaToken, passkey}. An unknown or used mfaToken is 401.',
  tags: ['auth'],
  body: z.strictObject({ mfaToken: mfaTokenSchema }),
  response: webauthnOptionsView,
  handler: async ({ body, services }) => ({ data: await services.auth.passkeyLoginOptions(body.mfaToken) }),
});
