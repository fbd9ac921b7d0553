// fund (master -> agent) and withdraw (agent -> master): one ledger transaction each, idempotent on request.
import { z } from 'zod';
import { unwrap } from '../../domain/outcome.ts';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { amountSchema, idempotencyKeySchema, walletIdParams } from '../../http/schemas.ts';
import { movementView } from '../../http/views.ts';
import { chooseIdempotencyKey, idempotencyClaim, keyScope } from '../../services/money/idempotency.ts';

const DESCRIPTIONS = {
  fund: 'Moves money from the master wallet to the agent wallet in one atomic ledger transaction.',
  withdraw: 'Moves available (not held) money from the agent wallet back to the master wallet.',
};

export function movementRoute(direction: 'fund' | 'withdraw') {
  return defineRoute({
    method: 'POST',
    url: `/api/v1/agent-wallets/:walletId/${direction}`,
    auth: 'user',
    role: 'admin',
    summary: direction === 'fund' ? 'Fund an agent wallet' : 'Withdraw from an agent wallet',
    description: `${DESCRIPTIONS[direction]} Send an Idempotency-Key header (or idempotencyKey) to retry safely.`,
    tags: ['agent-wallets'],
    params: walletIdParams,
    body: z.strictObject({ amount: amountSchema, idempotencyKey: idempotencyKeySchema.optional() }),
    response: movementView,
    handler: async ({ request, params, body, services }) => {
      const { tenantId: userId } = currentUser(request);
      const key = chooseIdempotencyKey(request.headers['idempotency-key'], body.idempotencyKey);
      const idempotency = idempotencyClaim(keyScope.user(userId), key, {
        operation: direction,
        walletId: params.walletId,
        amountMicros: body.amount.toString(),
      });
      const { outcome } = await services.wallets.move({
        direction,
        userId,
        walletId: params.walletId,
        amountMicros: body.amount,
        idempotency,
      });
      return { data: unwrap(outcome) };
    },
  });
}
