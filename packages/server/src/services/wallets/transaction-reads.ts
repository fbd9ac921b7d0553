// What routes and tools read of transactions, behind the ownership check: a member sees an agent wallet of their
// own tenant (another tenant's is NOT_FOUND), an agent key its own wallet. The queries stay here, beside the
// services that write the rows; routes and tools hold no store.
import type { Kysely } from 'kysely';
import type { TransactionStatus } from '../../domain/records.ts';
import { notFound } from '../../errors.ts';
import type { Database } from '../../store/schema.ts';
import type { Page } from '../context.ts';
import {
  listEvents,
  listTransactions,
  type TransactionView,
  toolTransactionView,
  transactionViews,
} from './transactions.ts';
import { ownedWallet } from './wallet-rows.ts';

export type TransactionEventView = Awaited<ReturnType<typeof listEvents>>[number];
export type ToolTransactionView = ReturnType<typeof toolTransactionView>;

export interface TransactionReads {
  /** A page of an agent wallet of the tenant, newest first, as the REST API shows it (with approvals). */
  ofAgentWallet(
    tenantId: string,
    walletId: string,
    status: TransactionStatus | undefined,
    page: Page,
  ): Promise<{ transactions: TransactionView[]; total: number }>;
  /** One transaction of an agent wallet of the tenant, with its audit trail; NOT_FOUND when not theirs. */
  one(
    tenantId: string,
    walletId: string,
    transactionId: string,
  ): Promise<TransactionView & { events: TransactionEventView[] }>;
  /** A page of the key's own wallet, newest first, as get_tx_history shows it to the agent. */
  ofAgentKey(
    walletId: string,
    status: TransactionStatus | undefined,
    page: Page,
  ): Promise<{ transactions: ToolTransactionView[]; total: number }>;
}

export function createTransactionReads(db: Kysely<Database>): TransactionReads {
  return {
    async ofAgentWallet(tenantId, walletId, status, page) {
      const wallet = await ownedWallet(db, tenantId, walletId, 'agent');
      const { rows, total } = await listTransactions(db, wallet.id, status, page);
      return { transactions: await transactionViews(db, rows), total };
    },
    async one(tenantId, walletId, transactionId) {
      const wallet = await ownedWallet(db, tenantId, walletId, 'agent');
      const row = await db
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', transactionId)
        .where('wallet_id', '=', wallet.id)
        .executeTakeFirst();
      if (row === undefined) throw notFound('transaction');
      const [view] = await transactionViews(db, [row]);
      return { ...view!, events: await listEvents(db, row.id) };
    },
    async ofAgentKey(walletId, status, page) {
      const { rows, total } = await listTransactions(db, walletId, status, page);
      return { transactions: rows.map(toolTransactionView), total };
    },
  };
}
