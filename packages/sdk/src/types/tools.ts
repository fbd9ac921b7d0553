// The tools (GET /mcp/v1/tools, POST /mcp/v1/tools/<name>, MCP): each one's params and data.
import type {
  Address,
  Amount,
  Currency,
  PageOptions,
  PolicyViolation,
  Rail,
  Scope,
  Timestamp,
  TransactionPage,
  TransactionStatus,
  TransactionType,
} from './common.ts';

export type ToolName =
  | 'check_balance'
  | 'get_tx_history'
  | 'send_payment'
  | 'request_approval'
  | 'check_payment'
  | 'x402_fetch'
  | 'x402_sign'
  | 'paid_fetch'
  | 'mpp_sign';

/** `check_balance` data. */
export interface Balance {
  walletId: string;
  address: Address;
  /** What can be spent now. */
  balance: Amount;
  /** Set aside for pending approvals; not included in `balance`. */
  heldBalance: Amount;
  currency: Currency;
  frozen: boolean;
  /** Room left under the daily cap (`"0.000000"` at or over it); null when no daily cap is active. */
  dailyCapRemaining: Amount | null;
  /** Room left under the total cap; null when no total cap is active. */
  totalCapRemaining: Amount | null;
  /** Room left under the tightest calendar budget (`spend_cap_period`); present only when one is active. */
  periodCapRemaining?: Amount;
  /** When that budget's period ends and it resets; present with `periodCapRemaining`. */
  periodCapResetsAt?: Timestamp;
}

export interface TxHistoryOptions extends PageOptions {
  status?: TransactionStatus;
}

/** A transaction as `get_tx_history` shows it to an agent. */
export type AgentTransaction = {
  id: string;
  type: TransactionType;
  toAddress: Address | null;
  amount: Amount;
  memo: string | null;
  status: TransactionStatus;
  txHash: string | null;
  rail: Rail | null;
  /** `x402` payments: the paid URL without its query; null otherwise. */
  resource: string | null;
  createdAt: Timestamp;
} & Partial<PaidRequestFields>;

/** A paid request's own fields (`type: "x402"` only): how the seller was paid, and what it answered. */
export interface PaidRequestFields {
  protocol: 'x402' | 'mpp';
  scheme: 'exact' | 'upto' | 'charge';
  /** The most the authorization allowed: the amount itself but for `upto`. */
  authorizedAmount: Amount;
  /** The seller's receipt as sent (x402 PAYMENT-RESPONSE, MPP Payment-Receipt); null until one came. */
  receipt: string | null;
}

/** `get_tx_history` data. */
export type TxHistory = TransactionPage<AgentTransaction>;

export interface SendPaymentParams {
  toAddress: Address;
  amount: Amount;
  memo?: string;
  /**
   * Retrying with the same key returns the first result instead of paying twice (24 h, per agent wallet).
   * The SDK generates one when omitted; pass your own to retry safely across processes.
   */
  idempotencyKey?: string;
}

/**
 * `send_payment` data. A denial is not data: it throws PolicyDeniedError; a failed settlement throws a
 * ServerError with code TX_EXECUTION_FAILED.
 */
export interface SendPaymentResult {
  txId: string;
  /** `pending` when the amount is above an approval threshold: the owner decides. */
  status: 'completed' | 'processing' | 'pending';
  txHash: string | null;
  amount: Amount;
  toAddress: Address;
  rejectionReason: string | null;
  violations?: PolicyViolation[];
}

export interface RequestApprovalParams extends SendPaymentParams {
  /** Why the agent needs this payment, shown to the owner. */
  reason?: string;
}

/** `request_approval` data. */
export interface RequestApprovalResult {
  txId: string;
  status: 'pending';
  message: string;
}

/** `check_payment` params: the payment to judge — or, on the evm rail, an x402 402's requirement(s). */
export type CheckPaymentParams =
  | { toAddress: Address; amount: Amount }
  | { paymentRequirements: Record<string, unknown> | Record<string, unknown>[] };

/** `check_payment` data: what send_payment would decide now; nothing is stored or held. */
export interface CheckPaymentResult {
  /** Whether it would go through (completed, processing or pending approval). */
  allowed: boolean;
  /** Whether it would wait for the owner's approval. */
  requiresApproval: boolean;
  violations: PolicyViolation[];
  balanceAfter: Amount;
  dailyCapRemaining: Amount | null;
  totalCapRemaining: Amount | null;
  /** The tightest calendar budget's room now and when it resets; present only when one is active. */
  periodCapRemaining?: Amount;
  periodCapResetsAt?: Timestamp;
  /** Why it would not go through although no policy denies it. */
  refusal: { code: 'WALLET_FROZEN' | 'INSUFFICIENT_BALANCE'; message: string } | null;
}

/** `x402_fetch` params (evm rail): the resource to fetch, paying up to `maxAmount` if it answers 402. */
export interface X402FetchParams {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent upstream as given; this call's own Authorization is never forwarded. */
  headers?: Record<string, string>;
  /** UTF-8 text. */
  body?: string;
  maxAmount: Amount;
  memo?: string;
  idempotencyKey?: string;
}

/** An x402 payment as it stands: `pending` (the owner must approve), `processing`, `completed`, `failed`. */
export interface X402Payment {
  txId: string;
  status: TransactionStatus;
  /** How the seller was paid: `x402` (schemes `exact`, `upto`) or `mpp` (`charge`). */
  protocol: 'x402' | 'mpp';
  scheme: 'exact' | 'upto' | 'charge';
  amount: Amount;
  /** The most the authorization allows: the amount itself but for `upto`. */
  authorizedAmount: Amount;
  payTo: Address;
  txHash: string | null;
}

/** `x402_fetch` data: the resource's final answer and what was paid for it (null: nothing was asked). */
export interface X402FetchResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  payment: X402Payment | null;
}

/** `x402_sign` params: the requirement(s) from a 402 the agent received itself. */
export interface X402SignParams {
  /**
   * One requirement, a list of them, or the whole 402 answer (`{x402Version, accepts, resource, extensions}`: with
   * the seller's `extensions`, a declared payment-identifier is answered in the payload).
   */
  paymentRequirements: Record<string, unknown> | Record<string, unknown>[];
  /** The URL paid for (history shows it without its query). */
  resource?: string;
  memo?: string;
  idempotencyKey?: string;
}

/** `x402_sign` data: the header to send (null while the payment awaits approval). */
export interface X402SignResult {
  txId: string;
  status: TransactionStatus;
  amount: Amount;
  payTo: Address;
  /** Base64 payment payload: the `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1) header value. */
  header: string | null;
  payload: { x402Version: number; payload: Record<string, unknown>; [field: string]: unknown } | null;
  /** Unix seconds. */
  validBefore: number | null;
}

/** `paid_fetch` params (evm rail): as `x402_fetch`, paying the cheapest offer of any protocol (x402, MPP). */
export type PaidFetchParams = X402FetchParams;
/** `paid_fetch` data: the resource's final answer and what was paid for it (null: nothing was asked). */
export type PaidFetchResult = X402FetchResult;

/** `mpp_sign` params: an MPP challenge the agent received itself. */
export interface MppSignParams {
  /**
   * The 402's `WWW-Authenticate` value (several challenges comma-joined), or a challenge object as a paid MCP
   * tool's error carries it.
   */
  challenge: string | Record<string, unknown>;
  memo?: string;
  idempotencyKey?: string;
}

/** `mpp_sign` data: the credential to send (both null while the payment awaits approval). */
export interface MppSignResult {
  txId: string;
  status: TransactionStatus;
  amount: Amount;
  recipient: Address;
  /** When the challenge expires (ISO-8601), as the seller said; null when it said nothing. */
  expires: string | null;
  /** The `Authorization` header value: `Payment <credential>`. */
  authorization: string | null;
  /** The credential object, for a paid MCP tool call's `_meta["org.paymentauth/credential"]`. */
  credential: Record<string, unknown> | null;
}

export interface ToolInfo {
  name: ToolName;
  description: string;
  scope: Scope;
  /** JSON Schema of the params. */
  inputSchema: JsonSchemaObject;
}

/** `GET /mcp/v1/tools` data: every tool, whatever the key's scopes. */
export interface ToolList {
  tools: ToolInfo[];
}

/** A JSON Schema whose root is an object, as LLM tool definitions need. */
export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [keyword: string]: unknown;
}

export interface ToolParamsMap {
  check_balance: Record<string, never>;
  get_tx_history: TxHistoryOptions;
  send_payment: SendPaymentParams;
  request_approval: RequestApprovalParams;
  check_payment: CheckPaymentParams;
  x402_fetch: X402FetchParams;
  x402_sign: X402SignParams;
  paid_fetch: PaidFetchParams;
  mpp_sign: MppSignParams;
}

export interface ToolDataMap {
  check_balance: Balance;
  get_tx_history: TxHistory;
  send_payment: SendPaymentResult;
  request_approval: RequestApprovalResult;
  check_payment: CheckPaymentResult;
  x402_fetch: X402FetchResult;
  x402_sign: X402SignResult;
  paid_fetch: PaidFetchResult;
  mpp_sign: MppSignResult;
}
