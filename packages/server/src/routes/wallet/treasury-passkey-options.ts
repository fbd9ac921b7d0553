import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { passkeySignatureOptions } from '../../services/rail/treasury-state.ts';
import { webauthnOptionsView } from '../auth/passkeys/schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/wallet/treasury/signatures/passkey-options',
  auth: 'user',
  role: 'owner',
  audited: false,
  summary: 'Passkey options for signing a payment that waits for the owners (hybrid account)',
  description:
    'Bounded treasury with TREASURY_ACCOUNT_KIND=hybrid only (404 without the bounded treasury; 400 ' +
    'VALIDATION_ERROR for another kind of account). WebAuthn request options whose challenge is the request’s ' +
    '`signRequest.digest` (base64url), listing the caller’s passkeys that are keys of the treasury account; ' +
    'answer with POST /wallet/treasury/signatures {id, passkey}. 409 INVALID_STATE when none of the caller’s ' +
    'passkeys is one of the account’s keys.',
  tags: ['wallet'],
  body: z.strictObject({ id: z.string().min(1).max(64) }),
  response: webauthnOptionsView,
  handler: async ({ request, body, services }) => {
    const user = currentUser(request);
    const caller = { userId: user.tenantId, personId: user.userId };
    return { data: await passkeySignatureOptions(services, caller, body.id) };
  },
});
