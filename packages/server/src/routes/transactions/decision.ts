// approve / reject a held payment: only the wallet's owner, only while pending (409 INVALID_STATE after).
import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { idSchema, memoSchema, noBody, optionalBody } from '../../http/schemas.ts';
import { transactionView } from '../../http/views.ts';

const params = z.strictObject({ walletId: idSchema, transactionId: idSchema });

export const approveRoute = defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets/:walletId/transactions/:transactionId/approve',
  auth: 'user',
  role: 'approver',
  stepUp: 'withFactor',
  summary: 'Approve a held payment',
  description:
    'Executes the held payment from its hold (it cannot fail for lack of funds). Policies are not evaluated ' +
    'again: the approval is the decision. Answers the updated transaction (completed, processing or failed). A ' +
    'payment held by require_approvals needs that many distinct members: an approval before the last is recorded ' +
    '(the transaction stays pending, its `approvals` list grows); the same member approving twice is a 409 ' +
    'INVALID_STATE.',
  tags: ['transactions'],
  params,
  body: noBody,
  response: transactionView,
  handler: async ({ request, params: p, services }) => ({
    data: await services.approvals.approve(currentUser(request), p.walletId, p.transactionId),
  }),
});

export const rejectRoute = defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets/:walletId/transactions/:transactionId/reject',
  auth: 'user',
  role: 'approver',
  summary: 'Reject a held payment',
  description: 'Releases the hold back to the agent wallet’s balance. Answers the updated transaction.',
  tags: ['transactions'],
  params,
  body: optionalBody({ reason: memoSchema.optional() }),
  response: transactionView,
  handler: async ({ request, params: p, body, services }) => ({
    data: await services.approvals.reject(
      currentUser(request),
      p.walletId,
      p.transactionId,
      // An empty reason is no reason: the default text is recorded instead.
      body?.reason?.trim() ? body.reason : null,
    ),
  }),
});
