// Tables of money: wallets, ledger accounts and entries, deposits, transactions and their events and approvals,
// x402 payments, spending windows, idempotency keys and withdrawal addresses.
import type { TransactionRecord } from '../../domain/records.ts';

export interface WithdrawalAddressesTable {
  id: string;
  user_id: string;
  /** Lower-case hex. */
  address: string;
  label: string;
  activates_at_ms: bigint;
  created_at_ms: bigint;
}

export type WalletKind = 'master' | 'agent';

export interface WalletsTable {
  id: string;
  user_id: string;
  kind: WalletKind;
  label: string | null;
  /** Lower-case hex; rendered with the EIP-55 checksum. */
  address: string;
  frozen_at_ms: bigint | null;
  /** Why it is frozen: 'auto_freeze' (migration 0016), or null for the owner's freeze. */
  frozen_reason: string | null;
  /** Bumped by every money movement of the wallet: the row lock that serialises policy checks per wallet. */
  version: bigint;
  /** Payments completed, processing or pending (held), as a running total: what a total cap is checked against. */
  spent_micros: bigint;
  /** BIP-44 index of the key behind the address on the `evm` rail; null on the sandbox rail (no key). */
  derivation_index: bigint | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export type AccountKind = 'available' | 'hold' | 'external';

export interface AccountsTable {
  id: string;
  wallet_id: string | null;
  kind: AccountKind;
  balance_micros: bigint;
  /** 1 only for outside-world accounts, which mirror money that entered or left the system. */
  allow_negative: bigint;
}

export interface LedgerTransactionsTable {
  id: string;
  kind: string;
  reference_id: string | null;
  created_at_ms: bigint;
}

export interface EntriesTable {
  transaction_id: string;
  leg: bigint;
  account_id: string;
  amount_micros: bigint;
  created_at_ms: bigint;
}

export interface DepositsTable {
  id: string;
  wallet_id: string;
  user_id: string;
  amount_micros: bigint;
  rail: string;
  tx_hash: string | null;
  ledger_transaction_id: string;
  created_at_ms: bigint;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  response_status: bigint | null;
  response_body: string | null;
  created_at_ms: bigint;
}

/** The row is the domain's transaction record (the batch deciders work on it as loaded). */
export type TransactionsTable = TransactionRecord;

/**
 * 'permit_signed' is 'signed' for a Permit2 authorization (x402 `upto`, migration 0024): a state of its own so that
 * an instance of an earlier release, during a rolling upgrade, never judges one as EIP-3009 (its settlement duty
 * would see the nonce unused by the token and give the money back while the seller is paid through Permit2).
 */
export type X402State =
  | 'awaiting_approval'
  | 'approved'
  | 'signed'
  | 'permit_signed'
  | 'settled'
  | 'expired'
  | 'abandoned';

export interface X402PaymentsTable {
  transaction_id: string;
  wallet_id: string;
  state: X402State;
  x402_version: bigint;
  requirement_json: string;
  resource_json: string | null;
  pay_to: string;
  amount_micros: bigint;
  nonce: string | null;
  valid_before_s: bigint | null;
  settle_tx_hash: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
  /** See migration 0019: the payment method (payments/registry.ts). */
  method: string;
  /** See migration 0024: what the treasury signed, and what the chain moved once settled. */
  authorization: AuthorizationKind;
  settled_micros: bigint | null;
  /** See migration 0026: the seller's declarations of the x402 extensions the payload answers; null when none. */
  extensions_json: string | null;
}

/** What the treasury signs for a paid request: USDC's EIP-3009 transfer, or a Permit2 witness transfer. */
export type AuthorizationKind = 'eip3009' | 'permit2';

/** See migration 0010: a wallet's spending in a rolling window of span_ms, kept as it moves. */
export interface SpendingWindowsTable {
  wallet_id: string;
  span_ms: bigint;
  /** The totals cover the counted payments created after through_ms - span_ms. */
  through_ms: bigint;
  spent_micros: bigint;
  payments: bigint;
}

export interface TransactionEventsTable {
  id: string;
  transaction_id: string;
  status: string;
  actor: string;
  note: string | null;
  created_at_ms: bigint;
}

export interface TransactionApprovalsTable {
  transaction_id: string;
  member_id: string;
  email: string;
  at_ms: bigint;
}

/** See migration 0016: a denial of a wallet with an auto_freeze policy. */
export interface PaymentDenialsTable {
  wallet_id: string;
  at_ms: bigint;
}
