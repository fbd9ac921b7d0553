import { z } from 'zod';
import { defineRoute } from '../../http/route.ts';
import { addressSchema } from '../../http/schemas.ts';
import { changeTreasuryOwners } from '../../services/rail/treasury-state.ts';
import { ownersRequestAnswer, ownersRequestData } from './withdrawal-schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/wallet/treasury/owners',
  auth: 'user',
  role: 'owner',
  // Who holds the money's keys is the strongest control there is: a stale session must not start a change unseen.
  stepUp: 'always',
  summary: 'Ask the owners to change their owners or threshold',
  description:
    'Bounded treasury with a multisig account only (TREASURY_MODE=bounded; 404 elsewhere, 400 for a hybrid ' +
    'account). Creates the owners’ request whose operation makes the account replace all its owners with `owners` ' +
    'and its threshold with `threshold` (the account’s own updateMultiSigParameters). The owners the account has ' +
    'now sign `signRequest`, as many as its threshold now, and hand each signature in with POST ' +
    '/api/v1/wallet/treasury/signatures {id, signature}; the service then submits it (and pays the gas). Once it ' +
    'is confirmed, only the new owners’ signatures count, at the new threshold, and GET /api/v1/wallet/treasury ' +
    'shows them. While the same change waits, asking again answers that same request. 400 VALIDATION_ERROR for ' +
    'an address named twice, more than 16 owners, or a threshold outside 1 to the number of owners; 409 ' +
    'INVALID_STATE when the account has these owners and this threshold already.',
  tags: ['wallet'],
  body: z.strictObject({
    owners: z.array(addressSchema).min(1).max(16).describe('every owner after the change (0x addresses)'),
    threshold: z.number().int().min(1).max(16).describe('how many of them must sign after the change'),
  }),
  response: ownersRequestAnswer(
    'the current owners’ threshold is met and the change is on its way to the chain',
    'signatures of the current owners still needed',
  ),
  successStatus: 202,
  handler: async ({ body, services }) => {
    const view = await changeTreasuryOwners(services, body);
    return {
      status: 202,
      data: ownersRequestData(view),
    };
  },
});
