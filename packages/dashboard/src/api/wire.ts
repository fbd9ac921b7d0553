// The wire's enumerations as values (the SDK exports their types only): what the dashboard offers in its
// filters and forms. Each list is checked against the SDK's type, so a type the SDK drops fails to compile.
import type {
  PolicyType,
  PolicyWindow,
  TransactionStatus,
  WebhookEventType,
  Weekday,
} from '@agent-wallet/sdk';

export const TX_STATUSES = [
  'pending',
  'processing',
  'completed',
  'rejected',
  'expired',
  'failed',
] as const satisfies readonly TransactionStatus[];

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
  'spend_cap_period',
  'auto_freeze',
  'require_approvals',
  'merchant_allowlist',
  'merchant_blocklist',
] as const satisfies readonly PolicyType[];

/** The rolling windows a windowed policy may name. */
export const WINDOWS = ['1h', '24h', '7d', '30d'] as const satisfies readonly PolicyWindow[];

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const satisfies readonly Weekday[];

export const WEBHOOK_EVENT_TYPES = [
  'payment.completed',
  'payment.failed',
  'payment.rejected',
  'approval.requested',
  'approval.approved',
  'approval.recorded',
  'approval.rejected',
  'approval.expired',
  'deposit.credited',
  'key.revoked',
  'key.rotated',
  'wallet.frozen',
  'wallet.unfrozen',
  'security.password_changed',
  'security.factor_added',
  'security.factor_removed',
  'security.member_invited',
  'security.member_role_changed',
  'security.member_removed',
  'withdrawal.completed',
  'withdrawal.failed',
  'withdrawal_address.added',
  'balance.low',
  'budget.threshold',
] as const satisfies readonly WebhookEventType[];

/** Page size used to load "everything" of small lists (keys, policies, pending approvals, wallets). */
export const FULL_LIST_LIMIT = 100;
