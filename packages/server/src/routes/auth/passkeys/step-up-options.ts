import { currentUser } from '../../../http/auth-hooks.ts';
import { defineRoute } from '../../../http/route.ts';
import { noBody } from '../../../http/schemas.ts';
import { webauthnOptionsView } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/auth/step-up/passkey-options',
  auth: 'user',
  role: 'viewer',
  audited: false,
  mfaEnrolment: true,
  summary: 'Passkey options for a step-up',
  description:
    'WebAuthn request options bound to this session; answer with POST /auth/step-up {passkey}. 409 ' +
    'INVALID_STATE when the account has no passkey.',
  tags: ['auth'],
  body: noBody,
  response: webauthnOptionsView,
  handler: async ({ request, services }) => {
    const user = currentUser(request);
    return {
      data: await services.passkeys.authenticationOptions(user.userId, { sessionId: user.sessionId }),
    };
  },
});
