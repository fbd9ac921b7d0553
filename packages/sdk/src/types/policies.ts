// The owner's REST API: policies and their params, the treasury view, webhooks.
import type { CalendarPeriod } from '../calendar-period.ts';
import type { Address, Amount, Currency, Page, PolicyType, PolicyWindow, Timestamp } from './common.ts';
import type { AgentWallet, MasterWithdrawal } from './wallets.ts';

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

/**
 * What the owners sign (`bounded` mode): the EIP-712 data of a user operation of their account, for
 * `eth_signTypedData_v4` (its numbers as decimal strings), and its hash.
 */
export interface SignRequest {
  typedData: {
    domain: { name: string; version: string; chainId: number; verifyingContract: Address };
    types: Record<string, Array<{ name: string; type: string }>>;
    primaryType: string;
    message: Record<string, string>;
  };
  digest: string;
}

/**
 * A request that waits for the owners' signatures (`bounded` mode): a master withdrawal more than the service's
 * float and allowance can pay (answered 202), or the revocation of the service's allowance.
 */
export interface AwaitingSignatures {
  /** The withdrawal, or the revocation request: the `id` its signatures are handed in with. */
  id: string;
  status: 'awaiting_signatures';
  signRequest: SignRequest;
  /** Owners' signatures still needed. */
  signaturesNeeded: number;
}

/**
 * `withdrawMaster` data: the withdrawal (201), or — `bounded` treasury, more than the float and the allowance can
 * pay — the owners' request to sign (202). Narrow on `status === 'awaiting_signatures'`.
 */
export type MasterWithdrawalAnswer = MasterWithdrawal | AwaitingSignatures;

/** `treasurySignature` data: where the request stands after this signature. */
export interface TreasurySignatureResult {
  id: string;
  /** `submitted`: the owners' threshold is met and the service sends it (and pays the gas). */
  status: 'awaiting_signatures' | 'submitted' | 'completed' | 'failed';
  signaturesNeeded: number;
  /** The owners who have signed, EIP-55. */
  signedBy: Address[];
}

/** `revokeTreasuryAllowance` data: the waiting revocation (`submitted` once signed at the threshold). */
export interface TreasuryRevocation extends Omit<AwaitingSignatures, 'status'> {
  status: 'awaiting_signatures' | 'submitted';
}

/**
 * `changeTreasuryOwners` data: the waiting change of the owners' account's owners and threshold, signed by the
 * owners it has now at its threshold now (`submitted` once they have).
 */
export type TreasuryOwnersChange = TreasuryRevocation;

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
