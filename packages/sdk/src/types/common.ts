// The data of every response, as the server sends it. Amounts are decimal strings with 6 places
// ("10.500000"): never convert them to a JavaScript number, which cannot hold every USDC amount exactly.

/** A USDC amount as a decimal string: `"10.5"`, `"0.000001"`. Responses always carry 6 decimal places. */
export type Amount = string;
/** An EVM address: `0x` + 40 hex digits (EIP-55 checksummed in responses). */
export type Address = string;
/** An ISO-8601 UTC timestamp. */
export type Timestamp = string;

export type Currency = 'USDC';
export type Scope = 'read' | 'write';
/** Where a payment settled: on this service's ledger, or on the configured external rail. */
export type Rail = 'internal' | 'sandbox' | 'evm';

export type TransactionStatus = 'pending' | 'processing' | 'completed' | 'rejected' | 'expired' | 'failed';
/** `x402`: the agent paid for a request (x402 or MPP: x402_fetch, x402_sign, paid_fetch, mpp_sign); `resource` says which. */
export type TransactionType = 'payment' | 'incoming' | 'fund' | 'withdraw' | 'x402';

export type PolicyType =
  | 'spend_cap_per_tx'
  | 'spend_cap_daily'
  | 'spend_cap_total'
  | 'address_allowlist'
  | 'require_approval_above'
  | 'spend_cap_window'
  | 'tx_count_cap'
  | 'address_blocklist'
  | 'recipient_cap'
  | 'time_window'
  | 'require_approvals'
  | 'spend_cap_period'
  | 'auto_freeze'
  | 'merchant_allowlist'
  | 'merchant_blocklist';

/** A rolling window of a windowed policy. */
export type PolicyWindow = '1h' | '24h' | '7d' | '30d';

export interface PolicyViolation {
  policyId: string;
  policyType: PolicyType;
  reason: string;
  /** The cap (decimal amount), the count limit or the allowed hours; null for address lists. */
  limit?: string | number | null;
  /** What the payment would bring it to; the recipient for lists; the local time for time windows. */
  attempted?: string | number | null;
  window?: PolicyWindow;
}

/** `page` from 1, `limit` 1–100 (default 20). */
export interface PageOptions {
  page?: number;
  limit?: number;
}

/** Every list except transactions. Newest first. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

/** Transaction lists (REST and the get_tx_history tool). Newest first. */
export interface TransactionPage<T> {
  transactions: T[];
  total: number;
  page: number;
  limit: number;
}
