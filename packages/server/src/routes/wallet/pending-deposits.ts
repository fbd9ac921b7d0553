import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery } from '../../http/schemas.ts';

export const pendingDepositView = z.object({
  txHash: z.string(),
  logIndex: z.number().int(),
  walletId: z.string(),
  address: z.string(),
  amount: z.string(),
  currency: z.literal('USDC'),
  blockNumber: z
    .string()
    .describe('Decimal block number (a string: block numbers outgrow JSON numbers in principle).'),
  confirmations: z
    .number()
    .int()
    .describe('Blocks deep now: the transfer is credited at `confirmationsRequired`.'),
  confirmationsRequired: z.number().int(),
  seenAt: z.string(),
});

export default defineRoute({
  method: 'GET',
  url: '/api/v1/wallet/deposits/pending',
  auth: 'user',
  role: 'viewer',
  summary: 'USDC transfers on their way in (evm rail)',
  description:
    'Transfers to any of the user’s wallet addresses that the chain shows but that are not yet CONFIRMATIONS ' +
    'deep, newest first, with their depth now. Not money yet: a re-org can still drop them. Exists only on the ' +
    '`evm` rail.',
  tags: ['wallet'],
  query: paginationQuery,
  response: paginated(pendingDepositView),
  handler: async ({ request, query, services }) => {
    const { items, total } = await services.chain!.pendingDeposits(currentUser(request).tenantId, query);
    return { data: { items, total, page: query.page, limit: query.limit } };
  },
});
