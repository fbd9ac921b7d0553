// Wire shapes of the REST API (contract section 3). Amounts are decimal strings, timestamps ISO-8601 UTC.

export interface User {
  id: string;
  email: string;
  createdAt: string;
}

export interface AuthResult {
  user: User;
  token: string;
}

export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  database: string;
  storage?: string;
  rail: string;
  redis?: string;
  /** `evm` rail only: null when the chain cannot be read. */
  treasury?: { address: string; gasWei: string; usdc: string } | null;
  /** `evm` rail with an explorer configured: `<explorerUrl>/tx/<hash>` shows a transaction. No trailing slash. */
  explorerUrl?: string;
  /** `evm` rail: blocks a deposit waits before it is credited. */
  confirmations?: number;
  reasons?: string[];
}

export interface MasterWallet {
  id: string;
  address: string;
  balance: string;
  currency: string;
  createdAt: string;
}

export interface AgentWallet {
  id: string;
  label: string | null;
  address: string;
  balance: string;
  heldBalance: string;
  currency: string;
  frozen: boolean;
  dailyCapRemaining: string | null;
  totalCapRemaining: string | null;
  pendingApprovals: number;
  createdAt: string;
  updatedAt: string;
}

export interface Deposit {
  id: string;
  amount: string;
  currency: string;
  rail: string;
  txHash: string | null;
  createdAt: string;
}

/** A USDC transfer the chain shows but that is not credited yet (`evm` rail). */
export interface PendingDeposit {
  txHash: string;
  logIndex: number;
  walletId: string;
  address: string;
  amount: string;
  currency: 'USDC';
  blockNumber: string;
  /** Blocks deep now. */
  confirmations: number;
  /** Credited at this depth. */
  confirmationsRequired: number;
  seenAt: string;
}

export interface SandboxDeposit extends Deposit {
  /** Master wallet balance after the deposit. */
  balance: string;
}

/**
 * Why a policy denies a payment. `limit` and `attempted` are decimal amounts for caps, whole numbers for
 * tx_count_cap; for time_window the allowed hours ("mon,tue 09:00-17:00 Europe/Berlin") and the local time
 * ("sat 10:15"); for address lists `limit` is null and `attempted` the recipient. Older answers may have only
 * `reason` (the server's own words).
 */
export interface Violation {
  policyId: string;
  policyType: string;
  reason: string;
  limit?: string | number | null;
  attempted?: string | number | null;
  window?: WindowName;
}

export const TX_STATUSES = ['pending', 'processing', 'completed', 'rejected', 'expired', 'failed'] as const;
export type TxStatus = (typeof TX_STATUSES)[number];

export interface Transaction {
  id: string;
  walletId: string;
  type: 'payment' | 'incoming' | 'fund' | 'withdraw';
  status: TxStatus;
  amount: string;
  currency: string;
  toAddress: string | null;
  memo: string | null;
  reason: string | null;
  rail: string | null;
  txHash: string | null;
  rejectionReason: string | null;
  violations: Violation[] | null;
  initiatedBy: string;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TxEvent {
  status: string;
  actor: string;
  note: string | null;
  at: string;
}

export interface TransactionDetail extends Transaction {
  events: TxEvent[];
}

export interface Movement {
  transaction: Transaction;
  /** The agent wallet after the move (the server may leave out caps and pendingApprovals here). */
  wallet: Partial<AgentWallet> & { id: string };
  masterBalance: string;
}

export type Scope = 'read' | 'write';
export type KeyStatus = 'active' | 'rotating' | 'revoked' | 'expired';

export interface ApiKey {
  id: string;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  rotatedToKeyId: string | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  label: string;
  scopes: Scope[];
  walletId: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface RotatedKey extends CreatedKey {
  previousKey: ApiKey;
}

export const POLICY_TYPES = [
  'spend_cap_per_tx',
  'spend_cap_daily',
  'spend_cap_total',
  'address_allowlist',
  'require_approval_above',
  'spend_cap_window',
  'tx_count_cap',
  'address_blocklist',
  'recipient_cap',
  'time_window',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

/** The rolling windows a windowed policy may name. */
export const WINDOWS = ['1h', '24h', '7d', '30d'] as const;
export type WindowName = (typeof WINDOWS)[number];

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

export type PolicyParams =
  | { limit: string }
  | { amount: string }
  | { addresses: string[] }
  | { limit: string; window: WindowName }
  | { count: number; window: WindowName }
  | { days: Day[]; start: string; end: string; timezone: string };

export interface Policy {
  id: string;
  walletId: string;
  type: PolicyType;
  params: Record<string, unknown>;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

export interface TxPage {
  transactions: Transaction[];
  total: number;
  page: number;
  limit: number;
}

/** POST /agent-wallets/:id/policies/simulate: would this payment pass now? Nothing is stored. */
export interface PaymentCheck {
  allowed: boolean;
  requiresApproval: boolean;
  violations: Violation[];
  balanceAfter: string;
  dailyCapRemaining: string | null;
  totalCapRemaining: string | null;
  refusal: { code: 'WALLET_FROZEN' | 'INSUFFICIENT_BALANCE'; message: string } | null;
}

export type PolicyAction = 'created' | 'updated' | 'paused' | 'resumed' | 'deleted';

/** One entry of a wallet's policy audit trail (newest first). */
export interface PolicyChange {
  id: string;
  policyId: string;
  action: PolicyAction;
  /** `user:<id>` for the owner. */
  actor: string;
  before: Policy | null;
  after: Policy | null;
  createdAt: string;
}

export const WEBHOOK_EVENT_TYPES = [
  'payment.completed',
  'payment.failed',
  'payment.rejected',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.expired',
  'deposit.credited',
  'key.revoked',
  'key.rotated',
  'wallet.frozen',
  'wallet.unfrozen',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** null: every event type (also ones added later). */
  events: WebhookEventType[] | null;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The answer to creating an endpoint: the only time its signing secret is ever shown. */
export interface CreatedWebhook {
  id: string;
  url: string;
  events: WebhookEventType[] | null;
  description: string | null;
  secret: string;
  createdAt: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
}

export interface WebhookInput {
  url: string;
  events: WebhookEventType[] | null;
  description: string | null;
}
