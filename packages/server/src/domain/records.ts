// The records money commands create and change, as plain data: a transaction (payment, incoming, fund,
// withdraw) as it is stored, a new one as the batch deciders describe it, and a deposit. The store's table types
// and the services' writers take them from here, so the pure deciders need nothing from either.
import type { Violation } from './policies/policies.ts';

export type TransactionType = 'payment' | 'incoming' | 'fund' | 'withdraw';
export type TransactionStatus = 'pending' | 'processing' | 'completed' | 'rejected' | 'expired' | 'failed';

/** A transaction (payment, incoming, fund, withdraw) as stored: the `transactions` table's row. */
export interface TransactionRecord {
  id: string;
  wallet_id: string;
  user_id: string;
  type: TransactionType;
  status: TransactionStatus;
  amount_micros: bigint;
  to_address: string | null;
  counterparty_wallet_id: string | null;
  memo: string | null;
  reason: string | null;
  rail: string | null;
  tx_hash: string | null;
  rejection_reason: string | null;
  violations_json: string | null;
  initiated_by: string;
  idempotency_key: string | null;
  expires_at_ms: bigint | null;
  related_transaction_id: string | null;
  /** Distinct approvals a held payment needs (0014); null means one. */
  approvals_required: bigint | null;
  /** x402 payments: the paid URL without its query (shown as `type: "x402"`); null otherwise. */
  resource: string | null;
  /** Paid requests (0020): the payment method (payments/registry.ts) and the seller's receipt; null otherwise. */
  payment_method: string | null;
  receipt: string | null;
  /** Metered paid requests (0024): the maximum authorized, once settled for less (`amount` is then what was paid). */
  authorized_micros: bigint | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export interface NewTransaction {
  /** Chosen by the caller when the ledger transaction must reference it before the record exists. */
  id?: string;
  walletId: string;
  userId: string;
  type: TransactionType;
  status: TransactionStatus;
  amountMicros: bigint;
  toAddress: string | null;
  counterpartyWalletId: string | null;
  memo: string | null;
  reason: string | null;
  rail: string | null;
  rejectionReason: string | null;
  violations: Violation[] | null;
  initiatedBy: string;
  idempotencyKey: string | null;
  expiresAtMs: number | null;
  relatedTransactionId: string | null;
  nowMs: number;
  /** The chain transaction of an evm deposit; payments get theirs when sent. */
  txHash?: string | null;
  /** An x402 payment's resource (the URL without its query). */
  resource?: string | null;
  /** A paid request's payment method (payments/registry.ts). */
  paymentMethod?: string | null;
  /** A held payment that needs more than one approval (require_approvals): how many. */
  approvalsRequired?: number | null;
}

export interface NewDeposit {
  id: string;
  walletId: string;
  userId: string;
  amountMicros: bigint;
  rail: string;
  ledgerTransactionId: string;
  nowMs: number;
  /** The chain transaction that brought the money in (evm rail); null otherwise. */
  txHash?: string | null;
}
