import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { handInSignature } from '../../services/rail/treasury-state.ts';
import { authenticationResponseSchema } from '../auth/passkeys/schemas.ts';

const id = z.string().min(1).max(64);

export default defineRoute({
  method: 'POST',
  url: '/api/v1/wallet/treasury/signatures',
  auth: 'user',
  role: 'owner',
  // A signature can complete a payment out of the owners' account: money leaving, as a withdrawal is.
  stepUp: 'always',
  summary: 'Hand in an owner’s signature for a payment that waits for the owners',
  description:
    'Bounded treasury only (TREASURY_MODE=bounded; 404 elsewhere). `id` is a withdrawal answered 202 ' +
    '`awaiting_signatures`, or the revocation POST /api/v1/wallet/treasury/revoke answered. Either `signature`: one owner’s eth_signTypedData_v4 signature of its `signRequest`; ' +
    'or, for a hybrid account (TREASURY_ACCOUNT_KIND=hybrid), `passkey`: the browser’s AuthenticationResponseJSON ' +
    'from one of the caller’s own passkeys, answering the options of POST ' +
    '/wallet/treasury/signatures/passkey-options (the challenge is the request’s `signRequest.digest`); the ' +
    'passkey must be one of the account’s keys on chain. Signatures are taken one at a time; once the owners’ ' +
    'threshold is met the service submits it once (and pays the gas): the withdrawal ends ' +
    '`completed` or `failed` as any other, a revocation stops every later refill. 400 VALIDATION_ERROR for a signature that is not an owner’s over this ' +
    'very request (or a passkey assertion that is not the caller’s, over another request, or from a key the ' +
    'account does not hold); 409 INVALID_STATE when that owner or passkey signed already.',
  tags: ['wallet'],
  body: z.union([
    z.strictObject({
      id,
      signature: z
        .string()
        .regex(/^0x[0-9a-fA-F]{130}$/, 'a 65-byte signature: 0x and 130 hex digits')
        .transform((s) => s as `0x${string}`),
    }),
    z.strictObject({ id, passkey: authenticationResponseSchema }),
  ]),
  response: z.object({
    id: z.string(),
    status: z.enum(['awaiting_signatures', 'submitted', 'completed', 'failed']),
    signaturesNeeded: z.number().int().describe('owners’ signatures still needed'),
    signedBy: z
      .array(z.string())
      .describe('who has signed: owners’ addresses (EIP-55), passkeys as `passkey:<credential id>`'),
  }),
  handler: async ({ request, body, services }) => {
    const user = currentUser(request);
    const caller = { userId: user.tenantId, personId: user.userId };
    const proof =
      'signature' in body
        ? { signature: body.signature }
        : { passkey: body.passkey as unknown as AuthenticationResponseJSON };
    const view = await handInSignature(services, caller, body.id, proof);
    return {
      data: {
        id: view.id,
        status: view.status,
        signaturesNeeded: view.signaturesNeeded,
        signedBy: view.signedBy,
      },
    };
  },
});
