import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery, walletIdParams } from '../../http/schemas.ts';
import { transactionView } from '../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets/:walletId/transactions/pending',
  auth: 'user',
  role: 'viewer',
  summary: 'Payments awaiting approval',
  description:
    'Held payments the owner can approve or reject, newest first, with the policies each would violate.',
  tags: ['transactions'],
  params: walletIdParams,
  query: paginationQuery,
  response: paginated(transactionView, 'transactions'),
  handler: async ({ request, params, query, services }) => {
    const { transactions, total } = await services.transactions.ofAgentWallet(
      currentUser(request).tenantId,
      params.walletId,
      'pending',
      query,
    );
    return { data: { transactions, total, page: query.page, limit: query.limit } };
  },
});
