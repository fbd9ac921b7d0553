import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { noBody } from '../../../http/schemas.ts';
import { webauthnOptionsView } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/passkeys/registration-options',
  auth: 'user',
  role: 'viewer',
  audited: false,
  mfaEnrolment: true,
  stepUp: 'always',
  summary: 'Start registering a passkey',
  description:
    'WebAuthn creation options for navigator.credentials.create (with @simplewebauthn/browser: ' +
    'startRegistration). The challenge is single use and lives 5 minutes. Needs step-up (adding a factor).',
  tags: ['auth'],
  body: noBody,
  response: webauthnOptionsView,
  handler: async ({ request, services }) => ({
    data: await services.passkeys.registrationOptions(currentUser(request).userId),
  }),
});
