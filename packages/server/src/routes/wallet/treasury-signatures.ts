import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { handInSignature } from '../../services/rail/treasury-state.ts';

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
    '`awaiting_signatures`, or the revocation POST /api/v1/wallet/treasury/revoke answered; `signature` is one ' +
    'owner’s eth_signTypedData_v4 signature of its `signRequest`. Signatures are taken one at a time; once the ' +
    'owners’ threshold is met the service submits it once (and pays the gas): the withdrawal ends `completed` or ' +
    '`failed` as any other, a revocation stops every later refill. 400 VALIDATION_ERROR for a signature that is ' +
    'not an owner’s over this very request; 409 INVALID_STATE when that owner signed already.',
  tags: ['wallet'],
  body: z.strictObject({
    id: z.string().min(1).max(64),
    signature: z
      .string()
      .regex(/^0x[0-9a-fA-F]{130}$/, 'a 65-byte signature: 0x and 130 hex digits')
      .transform((s) => s as `0x${string}`),
  }),
  response: z.object({
    id: z.string(),
    status: z.enum(['awaiting_signatures', 'submitted', 'completed', 'failed']),
    signaturesNeeded: z.number().int().describe('owners’ signatures still needed'),
    signedBy: z.array(z.string()).describe('the owners who have signed, EIP-55'),
  }),
  handler: async ({ request, body, services }) => {
    const { tenantId: userId } = currentUser(request);
    const view = await handInSignature(services, userId, body.id, body.signature);
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
