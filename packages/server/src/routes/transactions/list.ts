import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery, walletIdParams } from '../../http/schemas.ts';
import { transactionStatus, transactionView } from '../../http/views.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/agent-wallets/:walletId/transactions',
  auth: 'user',
  role: 'viewer',
  summary: "An agent wallet's transactions",
  description: 'Newest first: payments, incoming payments, funding and withdrawals. Filter with ?status=.',
  tags: ['transactions'],
  params: walletIdParams,
  query: paginationQuery.extend({ status: transactionStatus.optional() }),
  response: paginated(transactionView, 'transactions'),
  handler: async ({ request, params, query, services }) => {
    const { transactions, total } = await services.transactions.ofAgentWallet(
      currentUser(request).tenantId,
      params.walletId,
      query.status,
      query,
    );
    return { data: { transactions, total, page: query.page, limit: query.limit } };
  },
});
