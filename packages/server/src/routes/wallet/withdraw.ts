import { z } from 'zod';
import { unwrap } from '../../domain/outcome.ts';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { addressSchema, amountSchema, idempotencyKeySchema, memoSchema } from '../../http/schemas.ts';
import { chooseIdempotencyKey, idempotencyClaim, keyScope } from '../../services/money/idempotency.ts';
import { withdrawalAnswer } from '../../services/money/withdrawals.ts';
import { awaitingSignaturesView, withdrawalView } from './withdrawal-schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/wallet/withdrawals',
  auth: 'user',
  role: 'owner',
  stepUp: 'always',
  summary: 'Withdraw from the master wallet',
  description:
    'To an **active** address of the withdrawal book (else 422 WITHDRAWAL_ADDRESS_NOT_ALLOWED, saying when a ' +
    'pending one activates). `completed` at once on the sandbox or to an address of this service (internal ' +
    'ledger); `processing` on evm until the payout is CONFIRMATIONS deep, then `completed` with its txHash, or ' +
    '`failed` with the money back in the master wallet (`withdrawal.completed` / `withdrawal.failed`). 422 ' +
    'INSUFFICIENT_BALANCE. Send an Idempotency-Key header (or idempotencyKey) to retry safely.',
  tags: ['wallet'],
  body: z.strictObject({
    toAddress: addressSchema,
    amount: amountSchema,
    memo: memoSchema.optional(),
    idempotencyKey: idempotencyKeySchema.optional(),
  }),
  response: withdrawalView,
  successStatus: 201,
  otherSuccesses: {
    202: {
      description:
        'Bounded treasury (TREASURY_MODE=bounded), more than the service’s float and allowance can pay: the money ' +
        'is held and the owners’ account pays it once enough owners have signed `signRequest` ' +
        '(POST /api/v1/wallet/treasury/signatures); the withdrawal is `processing` meanwhile.',
      data: awaitingSignaturesView,
    },
  },
  handler: async ({ request, body, services }) => {
    const { tenantId: userId } = currentUser(request);
    const key = chooseIdempotencyKey(request.headers['idempotency-key'], body.idempotencyKey);
    const idempotency = idempotencyClaim(keyScope.user(userId), key, {
      operation: 'master_withdrawal',
      toAddress: body.toAddress,
      amountMicros: body.amount.toString(),
      memo: body.memo ?? null,
    });
    const outcome = await services.withdrawals.withdraw({
      userId,
      toAddress: body.toAddress,
      amountMicros: body.amount,
      memo: body.memo ?? null,
      idempotency,
    });
    const data = unwrap(outcome);
    const owners = data.awaitingOwners === true ? await services.withdrawals.ownersRequest(data.id) : null;
    if (owners !== null) {
      const answer: Record<string, unknown> = {
        id: data.id,
        status: 'awaiting_signatures',
        signRequest: owners.signRequest,
        signaturesNeeded: owners.signaturesNeeded,
      };
      return { status: 202, data: answer };
    }
    return { data: withdrawalAnswer(data) as Record<string, unknown> };
  },
});
