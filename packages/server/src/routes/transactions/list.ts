import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { paginated, paginationQuery, walletIdParams } from '../../http/schemas.ts';
import { transactionStatus, transactionView } from '../../http/views.ts';
import { listTransactions, transactionViews } from '../../services/wallets/transactions.ts';
import { ownedWallet } from '../../services/wallets/wallet-rows.ts';

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
    const wallet = await ownedWallet(
      services.store.db,
      currentUser(request).tenantId,
      params.walletId,
      'agent',
    );
    const { rows, total } = await listTransactions(services.store.db, wallet.id, query.status, query);
    const transactions = await transactionViews(services.store.db, rows);
    return { data: { transactions, total, page: query.page, limit: query.limit } };
  },
});
