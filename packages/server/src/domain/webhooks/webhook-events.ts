// The events a webhook endpoint can subscribe to (the API's `events` list); what each carries is built by the
// services (services/webhooks/webhook-events.ts).
export const EVENT_TYPES = [
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
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
