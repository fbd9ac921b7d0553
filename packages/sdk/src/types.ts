// The data of every response, as the server sends it. Amounts are decimal strings with 6 places
// ("10.500000"): never convert them to a JavaScript number, which cannot hold every USDC amount exactly.

import type { CalendarPeriod } from './calendar-period.ts';

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

// ---- Tools (contract section 4) ----

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

// ---- REST (contract section 3) ----

export interface User {
  id: string;
  email: string;
  createdAt: Timestamp;
}

/** A member's role in their organization (contract section 9); each role can do all the ones after it can. */
export type MemberRole = 'owner' | 'admin' | 'approver' | 'viewer';

/** signup / login data. */
export interface Session {
  user: User;
  /** JWT, valid for 7 days. The ManagementClient keeps it and sends it from then on. */
  token: string;
}

export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  database: 'up' | 'down';
  storage: 'sqlite' | 'postgres';
  /** `sandbox` on a server with simulated money. */
  rail: string;
  redis?: 'up' | 'down';
  /** `evm` rail with an explorer configured: `<explorerUrl>/tx/<hash>` shows a transaction. */
  explorerUrl?: string;
  /** `evm` rail: blocks a deposit waits before it is credited. */
  confirmations?: number;
}

export interface MasterWallet {
  id: string;
  address: Address;
  balance: Amount;
  currency: Currency;
  createdAt: Timestamp;
}

export interface WalletBalance {
  balance: Amount;
  currency: Currency;
}

export interface Deposit {
  id: string;
  amount: Amount;
  currency: Currency;
  rail: Rail;
  txHash: string | null;
  createdAt: Timestamp;
}

export interface SandboxDeposit extends Deposit {
  /** Master wallet balance after the deposit. */
  balance: Amount;
}

export interface AgentWallet {
  id: string;
  label: string | null;
  address: Address;
  balance: Amount;
  heldBalance: Amount;
  currency: Currency;
  frozen: boolean;
  dailyCapRemaining: Amount | null;
  totalCapRemaining: Amount | null;
  /** Payments of this wallet awaiting approval. */
  pendingApprovals: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A transaction as the owner sees it over REST. */
export interface Transaction {
  id: string;
  walletId: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: Amount;
  currency: Currency;
  toAddress: Address | null;
  memo: string | null;
  /** The agent's reason on a request_approval. */
  reason: string | null;
  rail: Rail | null;
  txHash: string | null;
  rejectionReason: string | null;
  /** The policies a denied payment violated, or that a held approval would violate. */
  violations: PolicyViolation[] | null;
  /**
   * `"user:<id>"` or `"key:<id>"` of this account; `"chain"` for an on-chain deposit; `"external"` for an internal
   * payment from another account (its key and user are not shown).
   */
  initiatedBy: string;
  /** When an unanswered approval expires. */
  expiresAt: Timestamp | null;
  /** `type: "x402"`: the paid URL without its query (e.g. `https://api.example.com/v1/report`). */
  resource: string | null;
  /** A payment that was held: how many distinct members must approve it (1 unless require_approvals); else null. */
  approvalsRequired: number | null;
  /** Who approved it and when, oldest first. */
  approvals: Array<{ memberId: string; email: string; at: Timestamp }>;
  /** Paid requests only (`type: "x402"`): the protocol, scheme, authorized amount and receipt. */
  protocol?: PaidRequestFields['protocol'];
  scheme?: PaidRequestFields['scheme'];
  authorizedAmount?: Amount;
  receipt?: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface TransactionEvent {
  status: TransactionStatus;
  /** `"user:<id>"`, `"key:<id>"`, `"system"`, `"chain"`, or `"external"` (another account paid this wallet). */
  actor: string;
  note: string | null;
  at: Timestamp;
}

export interface TransactionWithEvents extends Transaction {
  /** The audit trail: every state change, oldest first. */
  events: TransactionEvent[];
}

export interface TransactionListOptions extends PageOptions {
  status?: TransactionStatus;
}

export interface MoveParams {
  amount: Amount;
  /** Makes the call safe to retry (also automatically, with `maxRetries`): the move happens once. */
  idempotencyKey?: string;
}

/** fund / withdraw data. */
export interface Movement {
  transaction: Transaction;
  wallet: AgentWallet;
  masterBalance: Amount;
}

export interface CreateKeyParams {
  label: string;
  /** Default `["read", "write"]`. */
  scopes?: Scope[] | 'read' | 'write' | 'read,write';
  /** ISO-8601 date-time (or a Date): the key is refused from then on. */
  expiresAt?: string | Date;
}

export type KeyStatus = 'active' | 'rotating' | 'revoked' | 'expired';

/** A key as listed: never the key itself. */
export interface ApiKey {
  id: string;
  /** `oauth`: a connection an owner allowed an agent host by OAuth (its `label` is the client's name). */
  type: 'api_key' | 'oauth';
  /** The OAuth client's name; null for an API key. */
  clientName: string | null;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  status: KeyStatus;
  createdAt: Timestamp;
  expiresAt: Timestamp | null;
  /** When the key stops (stopped) working; in the future during a rotation grace. */
  revokedAt: Timestamp | null;
  lastUsedAt: Timestamp | null;
  rotatedToKeyId: string | null;
}

/** A new key: `key` is in this response only, never again. */
export interface CreatedApiKey {
  id: string;
  /** The API key (`svc_live_…`). Store it now: it cannot be recovered. */
  key: string;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  createdAt: Timestamp;
  expiresAt: Timestamp | null;
}

export interface RotatedApiKey extends CreatedApiKey {
  /** The old key, working until its `revokedAt` (now + grace). */
  previousKey: ApiKey;
}

export interface RotateKeyParams {
  /** How long the old key keeps working: default 3600, 0 = at once, at most 7 days. */
  gracePeriodSeconds?: number;
}

export interface CapParams {
  limit: Amount;
}
export interface AllowlistParams {
  addresses: Address[];
}
export interface ApprovalThresholdParams {
  amount: Amount;
}

/** A calendar budget: at most `limit` per day, week (from Monday) or month, in `timezone`. */
export interface PeriodCapParams {
  limit: Amount;
  period: CalendarPeriod;
  timezone: string;
}

/** The breaker: `denials` denied payments within the rolling `window` freeze the wallet. */
export interface AutoFreezeParams {
  denials: number;
  window: PolicyWindow;
}

/** Above `amount`, `approvers` (2–5) distinct members must approve. */
export interface MultiApprovalParams {
  amount: Amount;
  approvers: number;
}

export interface WindowCapParams {
  limit: Amount;
  window: PolicyWindow;
}
export interface CountCapParams {
  /** A whole number ≥ 1. */
  count: number;
  window: PolicyWindow;
}
export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
export interface TimeWindowParams {
  days: Weekday[];
  /** "HH:MM", 00:00–23:59; `end` before `start` wraps midnight. */
  start: string;
  end: string;
  /** IANA timezone, e.g. "Europe/Berlin". */
  timezone: string;
}

/** Hosts such as `api.example.com`, or `*.example.com` for its subdomains; they judge paid requests only. */
export interface MerchantListParams {
  hosts: string[];
}

export type PolicyParamsByType = {
  spend_cap_per_tx: CapParams;
  spend_cap_daily: CapParams;
  spend_cap_total: CapParams;
  address_allowlist: AllowlistParams;
  require_approval_above: ApprovalThresholdParams;
  spend_cap_window: WindowCapParams;
  tx_count_cap: CountCapParams;
  address_blocklist: AllowlistParams;
  recipient_cap: WindowCapParams;
  time_window: TimeWindowParams;
  require_approvals: MultiApprovalParams;
  spend_cap_period: PeriodCapParams;
  auto_freeze: AutoFreezeParams;
  merchant_allowlist: MerchantListParams;
  merchant_blocklist: MerchantListParams;
};

/** `{type, params}` of a policy, with the params its type takes. */
export type PolicyRule = {
  [T in PolicyType]: { type: T; params: PolicyParamsByType[T] };
}[PolicyType];

export type Policy = PolicyRule & {
  id: string;
  walletId: string;
  active: boolean;
  createdAt: Timestamp;
  updatedAt: Timestamp;
};

export interface UpdatePolicyParams {
  /** New params for the policy's type (the type cannot change). */
  params?: PolicyParamsByType[PolicyType];
  /** `false` pauses the policy. */
  active?: boolean;
}

export interface Deleted {
  id: string;
  deleted: true;
}

/** `GET /agent-wallets`: a page of wallets, and the waiting approvals of all the user's wallets. */
export interface AgentWalletPage extends Page<AgentWallet> {
  /** Payments awaiting approval across every wallet of the user (not only this page's). */
  pendingApprovals?: number;
}

/** A USDC transfer the chain shows but that is not credited yet (`evm` rail). */
export interface PendingDeposit {
  txHash: string;
  logIndex: number;
  walletId: string;
  address: Address;
  amount: Amount;
  currency: Currency;
  blockNumber: string;
  /** Blocks deep now. */
  confirmations: number;
  /** Credited at this depth. */
  confirmationsRequired: number;
  seenAt: Timestamp;
}

/** Who holds the treasury: `hot` (the service's key) or `bounded` (a smart account its owners hold). */
export type TreasuryMode = 'hot' | 'bounded';

/** What the chain lets the service move per period, in `bounded` mode. */
export interface TreasuryAllowance {
  perPeriod: Amount;
  period: string;
  /** Left in the current period, as the chain counts it. */
  remaining: Amount;
  /** When the next period starts; null until the owners have granted the service its delegation. */
  resetsAt: Timestamp | null;
}

/**
 * `GET /wallet/treasury` (`evm` rail): where the money rests and what a breach of the server could move. In `hot`
 * mode the service's own key (`account`) holds all of it: `owners` is empty, `threshold` and `allowance` are null
 * and `atRisk` equals `float`. In `bounded` mode a smart account the owners hold keeps the money and the service
 * may move only its allowance: `atRisk` is `float` + the remaining allowance.
 */
export interface TreasuryView {
  mode: TreasuryMode;
  /** The address that holds the money: in `hot` mode the service's treasury key. */
  account: Address;
  /** The humans' keys that own the account (`bounded` mode); empty when `hot`. */
  owners: Address[];
  /** Owners' signatures a change needs (`bounded` mode); null when `hot`. */
  threshold: number | null;
  /** null when nothing bounds what the service can move. */
  allowance: TreasuryAllowance | null;
  /** USDC in the service's own key. */
  float: Amount;
  /** What a breach of the server could take now: `float` + the remaining allowance. */
  atRisk: Amount;
}

/** `POST /agent-wallets/:id/policies/simulate` params: the payment to judge. */
export type SimulatePaymentParams = { toAddress: Address; amount: Amount };

export type PolicyChangeAction = 'created' | 'updated' | 'paused' | 'resumed' | 'deleted';

/** One entry of a wallet's policy audit trail, newest first. */
export interface PolicyChange {
  id: string;
  policyId: string;
  action: PolicyChangeAction;
  /** `"user:<id>"` for the owner. */
  actor: string;
  before: Policy | null;
  after: Policy | null;
  createdAt: Timestamp;
}

export type WebhookEventType =
  | 'payment.completed'
  | 'payment.failed'
  | 'payment.rejected'
  | 'approval.requested'
  | 'approval.approved'
  | 'approval.recorded'
  | 'approval.rejected'
  | 'approval.expired'
  | 'deposit.credited'
  | 'key.revoked'
  | 'key.rotated'
  | 'wallet.frozen'
  | 'wallet.unfrozen'
  | 'security.password_changed'
  | 'security.factor_added'
  | 'security.factor_removed'
  | 'security.member_invited'
  | 'security.member_role_changed'
  | 'security.member_removed'
  | 'withdrawal.completed'
  | 'withdrawal.failed'
  | 'withdrawal_address.added'
  | 'balance.low'
  | 'budget.threshold';

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** null: every event type, also ones added later. */
  events: WebhookEventType[] | null;
  description: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** A new endpoint: `secret` is in this response only, never again. */
export interface CreatedWebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[] | null;
  description: string | null;
  /** `whsec_…`: verifies the `Agent-Wallet-Signature` header. Store it now. */
  secret: string;
  createdAt: Timestamp;
}

export interface CreateWebhookParams {
  /** `https://` (the server refuses private and loopback targets unless configured otherwise). */
  url: string;
  /** Omitted or null: every event type. */
  events?: WebhookEventType[] | null;
  description?: string | null;
}

export type UpdateWebhookParams = Partial<CreateWebhookParams>;

/** A rotated signing secret: `secret` is in this response only, never again. */
export interface RotatedWebhookSecret {
  /** The new `whsec_…`: deliveries are signed with it from now on. */
  secret: string;
  /** Until then deliveries carry a second signature, with the replaced secret; after it only the new one. */
  previousSecretExpiresAt: Timestamp;
}

export interface RotateWebhookSecretParams {
  /** How long the replaced secret keeps signing: default 86400, 0 = at once, at most 604800 (7 days). */
  overlapSeconds?: number;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  nextAttemptAt: Timestamp | null;
  lastError: string | null;
  createdAt: Timestamp;
}

// ---- Organizations (contract section 9) ----

/** A list the server answers whole, in one response (members, invitations, alerts): no pages. */
export interface ItemList<T> {
  items: T[];
}

/** The caller's organization: every REST route acts on it. */
export interface Organization {
  id: string;
  /** Every member must have a second factor; a member without one can then only enrol one. */
  requireMfa: boolean;
  createdAt: Timestamp;
  /** The caller's own role in it: what a client may offer them. */
  role: MemberRole;
}

export interface UpdateOrganizationParams {
  /** `true`: from their next request, a member without a second factor can only enrol one (403 otherwise). */
  requireMfa: boolean;
}

export interface Member {
  /** The member's user id (also `actor.id` in the audit log). */
  id: string;
  email: string;
  role: MemberRole;
  joinedAt: Timestamp;
  /** The member has a second factor (TOTP or a passkey). */
  mfa: boolean;
}

export interface UpdateMemberParams {
  /** The last owner cannot be demoted (ConflictError, INVALID_STATE). */
  role: MemberRole;
}

/** An API key a member made (created or rotated), as their removal names it: never the key itself. */
export interface MemberKey {
  id: string;
  label: string;
  walletId: string;
}

/** An OAuth connection a member allowed, as their removal names it. */
export interface MemberConnection {
  id: string;
  clientName: string;
  walletId: string;
}

/**
 * `members.remove` data: the member's sessions ended at once, and so did the API keys and OAuth connections they
 * made (`revokedKeys`, `revokedOAuth`) unless the remover kept them (`keptKeys`, `keptOAuth`).
 */
export interface RemovedMember extends Deleted {
  /** The same as `deleted` (the name of earlier releases). */
  removed: true;
  /** Refused from the answer on, on every instance. */
  revokedKeys: MemberKey[];
  revokedOAuth: MemberConnection[];
  /** With `keepKeys: true`: what the member made that keeps working. */
  keptKeys: MemberKey[];
  keptOAuth: MemberConnection[];
}

export interface RemoveMemberOptions {
  /** `true`: the API keys and OAuth connections the member made keep working (default: they end with them). */
  keepKeys?: boolean;
}

/** An open invitation (neither accepted, revoked nor expired); its token is never listed. */
export interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: Timestamp;
  createdAt: Timestamp;
}

/** A new invitation: `token` is in this response only, never again. */
export interface CreatedInvitation extends Invitation {
  /** Single use, 7 days: `signup({email, password, invitationToken})` with the same email joins. Send it now. */
  token: string;
}

export interface InviteMemberParams {
  /**
   * Any email is answered alike (an invitation reveals no account). One organization per login: an email that
   * already has one meets ConflictError (EMAIL_TAKEN) when it signs up with the token.
   */
  email: string;
  role: MemberRole;
}

/** `members.invitations.revoke` data: the token is refused from now on. */
export interface RevokedInvitation extends Deleted {
  /** The same as `deleted` (the name of earlier releases). */
  revoked: true;
}

// ---- Alerts (contract section 10) ----

export type AlertType = 'balance_below' | 'cap_used';

/** `balance_below`: `balance.low` once when the watched wallet's balance falls below `amount`. */
export interface BalanceBelowParams {
  amount: Amount;
}

/** `cap_used`: `budget.threshold` once per cap when spending reaches `percent` (1–100) of any cap. */
export interface CapUsedParams {
  /** A whole number, 1–100. */
  percent: number;
}

/** `alerts.create` params: the alert's type with the params it takes, and the wallet it watches. */
export type AlertRule =
  | {
      type: 'balance_below';
      /** An agent wallet, or omitted: the master wallet. */
      walletId?: string;
      params: BalanceBelowParams;
    }
  | {
      type: 'cap_used';
      /** The agent wallet whose spending caps are watched. */
      walletId: string;
      params: CapUsedParams;
    };

export interface Alert {
  id: string;
  type: AlertType;
  /** The wallet watched (the master wallet's id for a `balance_below` created without one). */
  walletId: string;
  params: BalanceBelowParams | CapUsedParams;
  /** Fired and not re-armed yet. */
  firing: boolean;
  createdAt: Timestamp;
}

export interface AlertListOptions {
  /** Only this wallet's alerts. */
  walletId?: string;
}

// ---- Audit log (contract section 9) ----

export interface AuditActor {
  type: 'member' | 'agent' | 'system';
  /** A member's id, an API key's id, or what acted for the service (`system`, `chain`). */
  id: string;
  /** The member's email or the key's label. */
  label: string | null;
}

/** One line of the organization's audit log. */
export interface AuditEntry {
  id: string;
  at: Timestamp;
  actor: AuditActor;
  /** The operation (its OpenAPI operationId, e.g. `createPolicy`) or `transaction.<status>` for a payment. */
  action: string;
  target: string | null;
  walletId: string | null;
  before: unknown;
  /** The answer of the write, without its secrets. */
  after: unknown;
}

export interface AuditListOptions extends PageOptions {
  walletId?: string;
  /** A member's id or an API key's id. */
  actor?: string;
  /** From this instant on (inclusive): an ISO-8601 date-time or a Date. */
  from?: string | Date;
  /** Up to this instant (inclusive). */
  to?: string | Date;
}
