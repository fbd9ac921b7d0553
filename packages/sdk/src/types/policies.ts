// The owner's REST API: policies and their params, webhooks. The treasury's types are in treasury.ts.
import type { CalendarPeriod } from '../calendar-period.ts';
import type { Address, Amount, Currency, Page, PolicyType, PolicyWindow, Timestamp } from './common.ts';
import type { AgentWallet } from './wallets.ts';

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
  | 'budget.threshold'
  | 'treasury.at_risk';

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
