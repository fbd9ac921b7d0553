// The wire's enumerations as values (the SDK exports their types only): what the dashboard offers in its
// filters and forms, in the order it offers them. Their types are the SDK's generated wire types
// (`WireOperations`, generated from the server's OpenAPI document), and each list must name every member of
// its type and nothing else: a value the server adds or drops fails the dashboard's typecheck here
// (`WireListChecks`) and its test test/wire-lists.test.ts, which reads the lists against the document itself.
import type { WireOperations } from '@agent-wallet/sdk';

/** The `data` of an operation's 200 answer, as the OpenAPI document says it. */
type Data<Op extends keyof WireOperations> = WireOperations[Op]['responses'] extends {
  200: { content: { 'application/json': { data: infer D } } };
}
  ? D
  : never;
type WirePolicy = Data<'listPolicies'>['items'][number];
type ParamsOf<T extends WirePolicy['type']> = Extract<WirePolicy, { type: T }>['params'];

export type WireTransactionStatus = Data<'listTransactions'>['transactions'][number]['status'];
export type WirePolicyType = WirePolicy['type'];
export type WirePolicyWindow = ParamsOf<'spend_cap_window'>['window'];
export type WireWeekday = ParamsOf<'time_window'>['days'][number];
export type WireWebhookEventType = NonNullable<Data<'listWebhooks'>['items'][number]['events']>[number];

export const TX_STATUSES = [
  'pending',
  'processing',
  'completed',
  'rejected',
  'expired',
  'failed',
] as const satisfies readonly WireTransactionStatus[];

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
] as const satisfies readonly WirePolicyType[];

/** The rolling windows a windowed policy may name. */
export const WINDOWS = ['1h', '24h', '7d', '30d'] as const satisfies readonly WirePolicyWindow[];

export const DAYS = [
  'mon',
  'tue',
  'wed',
  'thu',
  'fri',
  'sat',
  'sun',
] as const satisfies readonly WireWeekday[];

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
  'treasury.at_risk',
] as const satisfies readonly WireWebhookEventType[];

/** True when `List` names every member of `Union` and nothing else; else what is missing or unknown. */
type Exact<List extends readonly string[], Union extends string> = [
  Exclude<Union, List[number]>,
  Exclude<List[number], Union>,
] extends [never, never]
  ? true
  : { missing: Exclude<Union, List[number]>; unknown: Exclude<List[number], Union> };
type Expect<T extends true> = T;

/** Compile-time: each list is its wire type, whole (see the top of the file). */
export type WireListChecks = [
  Expect<Exact<typeof TX_STATUSES, WireTransactionStatus>>,
  Expect<Exact<typeof POLICY_TYPES, WirePolicyType>>,
  Expect<Exact<typeof WINDOWS, WirePolicyWindow>>,
  Expect<Exact<typeof DAYS, WireWeekday>>,
  Expect<Exact<typeof WEBHOOK_EVENT_TYPES, WireWebhookEventType>>,
];

/** Page size used to load "everything" of small lists (keys, policies, pending approvals, wallets). */
export const FULL_LIST_LIMIT = 100;
