// Business records of money movements on a wallet (the ledger holds the money; these say why) and their
// audit trail: every state change is an event with its actor and time.
import { type Kysely, type Selectable, sql } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import { toChecksumAddress } from '../../domain/address.ts';
import { newId } from '../../domain/ids.ts';
import type { ApprovalMark } from '../../domain/money/approvals.ts';
import { formatMicros } from '../../domain/money.ts';
import type { Violation } from '../../domain/policies/policies.ts';
import type { NewTransaction, TransactionStatus, TransactionType } from '../../domain/records.ts';
import { kindOf } from '../../payments/kinds.ts';
import { notCompleted } from '../../store/partial-index.ts';
import type { Database, TransactionsTable } from '../../store/schema.ts';
import { type Page, pageOf } from '../context.ts';

export type TransactionRow = Selectable<TransactionsTable>;

/** The row a new transaction record is stored as. */
export function transactionRow(tx: NewTransaction): TransactionRow {
  return {
    id: tx.id ?? newId('tx'),
    wallet_id: tx.walletId,
    user_id: tx.userId,
    type: tx.type,
    status: tx.status,
    amount_micros: tx.amountMicros,
    to_address: tx.toAddress,
    counterparty_wallet_id: tx.counterpartyWalletId,
    memo: tx.memo,
    reason: tx.reason,
    rail: tx.rail,
    tx_hash: tx.txHash ?? null,
    rejection_reason: tx.rejectionReason,
    violations_json: tx.violations === null ? null : JSON.stringify(tx.violations),
    initiated_by: tx.initiatedBy,
    idempotency_key: tx.idempotencyKey,
    expires_at_ms: tx.expiresAtMs === null ? null : BigInt(tx.expiresAtMs),
    related_transaction_id: tx.relatedTransactionId,
    resource: tx.resource ?? null,
    payment_method: tx.paymentMethod ?? null,
    receipt: null,
    authorized_micros: null,
    approvals_required: tx.approvalsRequired == null ? null : BigInt(tx.approvalsRequired),
    created_at_ms: BigInt(tx.nowMs),
    updated_at_ms: BigInt(tx.nowMs),
  };
}

export async function insertTransaction(trx: Kysely<Database>, tx: NewTransaction): Promise<TransactionRow> {
  const row = transactionRow(tx);
  await trx.insertInto('transactions').values(row).execute();
  await trx
    .insertInto('transaction_events')
    .values(creationEventRow({ ...tx, id: row.id }))
    .execute();
  const counted = countsAsSpending(tx.type, tx.status);
  await addSpent(
    trx,
    { walletId: tx.walletId, createdAtMs: row.created_at_ms },
    { micros: counted ? tx.amountMicros : 0n, payments: counted ? 1 : 0 },
  );
  return row;
}

/** A payment counts as spent (by the caps) while its money is gone, on its way, or held for approval. */
export const SPENDING_STATUSES = ['completed', 'processing', 'pending'] as const;
const SPENDING_STATUS_SET: ReadonlySet<string> = new Set(SPENDING_STATUSES);

export function countsAsSpending(type: string, status: string): boolean {
  return type === 'payment' && SPENDING_STATUS_SET.has(status);
}

/**
 * The wallet's running total of what it has spent (wallets.spent_micros), so a total cap is checked without
 * summing the wallet's whole history, and its spending windows (migration 0010) that the payment is inside of.
 * Changed in the transaction that changes a payment's status; the wallet row first, so on PostgreSQL its lock
 * is held before the windows move (a batch locks it before it reads them).
 */
async function addSpent(
  trx: Kysely<Database>,
  payment: { walletId: string; createdAtMs: bigint },
  change: { micros: bigint; payments: number },
): Promise<void> {
  if (change.micros === 0n) return;
  await trx
    .updateTable('wallets')
    .set((eb) => ({ spent_micros: eb('spent_micros', '+', change.micros) }))
    .where('id', '=', payment.walletId)
    .execute();
  await trx
    .updateTable('spending_windows')
    .set((eb) => ({
      spent_micros: eb('spent_micros', '+', change.micros),
      payments: eb('payments', '+', BigInt(change.payments)),
    }))
    .where('wallet_id', '=', payment.walletId)
    .where(sql<boolean>`through_ms - span_ms < ${payment.createdAtMs}`)
    .execute();
}

/**
 * A metered payment (x402 `upto`) settled for less than it authorized: its amount becomes what was paid, the
 * authorized maximum is kept beside it (history's authorizedAmount), and what the wallet counts as spent (its
 * total and its windows) follows the amount. The money itself goes back in the caller's ledger transfer.
 */
export async function settleForLess(
  trx: Kysely<Database>,
  tx: Pick<TransactionRow, 'id' | 'wallet_id' | 'type' | 'status' | 'amount_micros' | 'created_at_ms'>,
  settledMicros: bigint,
): Promise<void> {
  await trx
    .updateTable('transactions')
    .set({ amount_micros: settledMicros, authorized_micros: tx.amount_micros })
    .where('id', '=', tx.id)
    .execute();
  if (!countsAsSpending(tx.type, tx.status)) return;
  await addSpent(
    trx,
    { walletId: tx.wallet_id, createdAtMs: tx.created_at_ms },
    { micros: settledMicros - tx.amount_micros, payments: 0 },
  );
}

/** Moves a transaction to a new status and records who did it: the audit trail. */
export async function setTransactionStatus(
  trx: Kysely<Database>,
  from: Pick<TransactionRow, 'id' | 'wallet_id' | 'type' | 'status' | 'amount_micros' | 'created_at_ms'>,
  change: {
    status: TransactionStatus;
    actor: string;
    note: string | null;
    nowMs: number;
    txHash?: string | null;
    rail?: string | null;
    rejectionReason?: string | null;
  },
): Promise<void> {
  await trx
    .updateTable('transactions')
    .set({
      status: change.status,
      updated_at_ms: BigInt(change.nowMs),
      ...(change.txHash === undefined ? {} : { tx_hash: change.txHash }),
      ...(change.rail === undefined ? {} : { rail: change.rail }),
      ...(change.rejectionReason === undefined ? {} : { rejection_reason: change.rejectionReason }),
    })
    .where('id', '=', from.id)
    .execute();
  await recordEvent(trx, from.id, change.status, change.actor, change.note, change.nowMs);
  const counts =
    Number(countsAsSpending(from.type, change.status)) - Number(countsAsSpending(from.type, from.status));
  await addSpent(
    trx,
    { walletId: from.wallet_id, createdAtMs: from.created_at_ms },
    { micros: BigInt(counts) * from.amount_micros, payments: counts },
  );
}

/** One event of the audit trail: a status, who set it, and why. */
export function eventRow(
  transactionId: string,
  status: string,
  actor: string,
  note: string | null,
  nowMs: number,
) {
  return {
    id: newId('evt'),
    transaction_id: transactionId,
    status,
    actor,
    note,
    created_at_ms: BigInt(nowMs),
  };
}

/** The audit trail's first event of a new transaction: its status, by whom, and why. */
export function creationEventRow(tx: NewTransaction & { id: string }) {
  return eventRow(tx.id, tx.status, tx.initiatedBy, tx.rejectionReason ?? tx.reason, tx.nowMs);
}

export async function recordEvent(
  trx: Kysely<Database>,
  transactionId: string,
  status: string,
  actor: string,
  note: string | null,
  nowMs: number,
): Promise<void> {
  await trx
    .insertInto('transaction_events')
    .values(eventRow(transactionId, status, actor, note, nowMs))
    .execute();
}

/** The transaction as the REST API shows it to the wallet's owner, with its approvals when it was held. */
export function transactionView(row: TransactionRow, approvals: readonly ApprovalMark[] = []) {
  return {
    id: row.id,
    walletId: row.wallet_id,
    type: viewType(row),
    status: row.status,
    amount: formatMicros(row.amount_micros),
    currency: 'USDC',
    toAddress: row.to_address === null ? null : toChecksumAddress(row.to_address),
    memo: row.memo,
    reason: row.reason,
    rail: row.rail,
    txHash: row.tx_hash,
    rejectionReason: row.rejection_reason,
    violations: row.violations_json === null ? null : (JSON.parse(row.violations_json) as Violation[]),
    initiatedBy: row.initiated_by,
    resource: row.resource,
    ...paidRequestView(row),
    // A payment that was ever held has an expiry; it needed one approval unless require_approvals asked more.
    approvalsRequired: row.expires_at_ms === null ? null : Number(row.approvals_required ?? 1n),
    approvals: approvals.map((a) => ({ memberId: a.memberId, email: a.email, at: isoFromMs(a.atMs) })),
    expiresAt: row.expires_at_ms === null ? null : isoFromMs(row.expires_at_ms),
    createdAt: isoFromMs(row.created_at_ms),
    updatedAt: isoFromMs(row.updated_at_ms),
  };
}

/** The approvals of these transactions, oldest first each (one query for a page). */
export async function approvalsOf(
  db: Kysely<Database>,
  transactionIds: readonly string[],
): Promise<Map<string, ApprovalMark[]>> {
  const byTransaction = new Map<string, ApprovalMark[]>();
  if (transactionIds.length === 0) return byTransaction;
  const rows = await db
    .selectFrom('transaction_approvals')
    .selectAll()
    .where('transaction_id', 'in', [...transactionIds])
    .orderBy('at_ms', 'asc')
    .orderBy('member_id', 'asc')
    .execute();
  for (const r of rows) {
    const marks = byTransaction.get(r.transaction_id) ?? [];
    marks.push({ memberId: r.member_id, email: r.email, atMs: Number(r.at_ms) });
    byTransaction.set(r.transaction_id, marks);
  }
  return byTransaction;
}

/** Transactions as the REST API shows them, with their approvals (one query for the page). */
export async function transactionViews(db: Kysely<Database>, rows: readonly TransactionRow[]) {
  const held = rows.filter((r) => r.expires_at_ms !== null).map((r) => r.id);
  const approvals = await approvalsOf(db, held);
  return rows.map((row) => transactionView(row, approvals.get(row.id)));
}

/** A member's approval as transaction_approvals stores it. */
export function approvalRow(a: { transactionId: string } & ApprovalMark) {
  return { transaction_id: a.transactionId, member_id: a.memberId, email: a.email, at_ms: BigInt(a.atMs) };
}

export type TransactionView = ReturnType<typeof transactionView>;

/** A payment of a master wallet as the owner's withdrawal (contract section 8). */
export function withdrawalView(row: TransactionRow) {
  return {
    id: row.id,
    toAddress: toChecksumAddress(row.to_address!),
    amount: formatMicros(row.amount_micros),
    memo: row.memo,
    status: row.status,
    txHash: row.tx_hash,
    rail: row.rail,
    createdAt: isoFromMs(row.created_at_ms),
  };
}

/** The transaction as get_tx_history shows it to an agent (contract section 4). */
export function toolTransactionView(row: TransactionRow) {
  return {
    id: row.id,
    type: viewType(row),
    toAddress: row.to_address === null ? null : toChecksumAddress(row.to_address),
    amount: formatMicros(row.amount_micros),
    memo: row.memo,
    status: row.status,
    txHash: row.tx_hash,
    rail: row.rail,
    resource: row.resource,
    ...paidRequestView(row),
    createdAt: isoFromMs(row.created_at_ms),
  };
}

/** A paid request's protocol, scheme, authorized amount and receipt; nothing for any other transaction. */
function paidRequestView(
  row: Pick<TransactionRow, 'payment_method' | 'receipt' | 'amount_micros' | 'authorized_micros'>,
) {
  if (row.payment_method === null) return {};
  const method = kindOf(row.payment_method);
  return {
    protocol: method.protocol,
    scheme: method.scheme,
    // A metered payment settled for less keeps its maximum beside its amount; any other authorized its amount.
    authorizedAmount: formatMicros(row.authorized_micros ?? row.amount_micros),
    receipt: row.receipt,
  };
}

/** An x402 payment is stored as a payment (every cap counts it) and shown as what it is. */
function viewType(row: Pick<TransactionRow, 'type' | 'resource'>): TransactionType | 'x402' {
  return row.type === 'payment' && row.resource !== null ? 'x402' : row.type;
}

export async function listTransactions(
  db: Kysely<Database>,
  walletId: string,
  status: TransactionStatus | undefined,
  page: Page,
): Promise<{ rows: TransactionRow[]; total: number }> {
  let base = db.selectFrom('transactions').where('wallet_id', '=', walletId);
  if (status !== undefined) base = base.where('status', '=', status);
  // Any other status is found through the partial index of payments that are not completed.
  if (status !== undefined && status !== 'completed') base = base.where(notCompleted);
  const { rows, total } = await pageOf(base, page);
  return { rows, total };
}

export async function listEvents(db: Kysely<Database>, transactionId: string) {
  const rows = await db
    .selectFrom('transaction_events')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at_ms', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map((r) => ({
    status: r.status,
    actor: r.actor,
    note: r.note,
    at: isoFromMs(r.created_at_ms),
  }));
}
