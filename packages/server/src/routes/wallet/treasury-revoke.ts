import { defineRoute } from '../../http/route.ts';
import { revokeDelegation } from '../../services/rail/treasury-state.ts';
import { ownersRequestAnswer, ownersRequestData } from './withdrawal-schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/wallet/treasury/revoke',
  auth: 'user',
  role: 'owner',
  // Closing the service's allowance is a money guard: a stale session must not start (or learn of) it unseen.
  stepUp: 'always',
  summary: 'Ask the owners to revoke the service’s allowance',
  description:
    'Bounded treasury only (TREASURY_MODE=bounded; 404 elsewhere). Creates the owners’ request that revokes the ' +
    'delegation letting the service’s key refill its float from the owners’ account: each owner signs ' +
    '`signRequest` and hands the signature in with POST /api/v1/wallet/treasury/signatures {id, signature}; once ' +
    'the owners’ threshold is met the service submits it (and pays the gas). From the block it is mined in, the ' +
    'chain refuses every redemption: the float still pays what it holds, and nothing refills it. While a ' +
    'revocation waits (for signatures, or on its way to the chain), asking again answers that same request. ' +
    '409 INVALID_STATE when no delegation is active (none granted, or revoked already).',
  tags: ['wallet'],
  response: ownersRequestAnswer('the owners’ threshold is met and the revocation is on its way to the chain'),
  successStatus: 202,
  handler: async ({ services }) => {
    const view = await revokeDelegation(services);
    return {
      status: 202,
      data: ownersRequestData(view),
    };
  },
});
