// Table types for Kysely. Integers are BIGINT on both engines and arrive as bigint (better-sqlite3 with
// safe integers, pg with an int8 parser), so one code path reads them. Times are epoch milliseconds.

import type { Generated } from 'kysely';
import type { TransactionRecord } from '../domain/records.ts';

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  created_at_ms: bigint;
  password_changed_at_ms: bigint;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at_ms: bigint;
  expires_at_ms: bigint;
  revoked_at_ms: bigint | null;
  /** Migration 0011: written at most once a minute (SESSION_TOUCH_INTERVAL_MS), not on every request. */
  last_used_at_ms: bigint | null;
  ip: string | null;
  user_agent: string | null;
  /** The last proof of presence (login, step-up): sensitive operations need it recent. */
  stepped_up_at_ms: bigint | null;
}

export interface TotpFactorsTable {
  user_id: string;
  secret: string;
  confirmed_at_ms: bigint | null;
  last_time_step: bigint | null;
  created_at_ms: bigint;
}

export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  code_hash: string;
  used_at_ms: bigint | null;
  created_at_ms: bigint;
}

export interface PasskeysTable {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  sign_count: bigint;
  transports_json: string;
  label: string;
  created_at_ms: bigint;
  last_used_at_ms: bigint | null;
}

export type AuthChallengeKind =
  | 'mfa_login'
  | 'passkey_registration'
  | 'passkey_authentication'
  | 'password_reset';

export interface AuthChallengesTable {
  id: string;
  user_id: string;
  kind: AuthChallengeKind;
  challenge: string | null;
  session_id: string | null;
  failures: bigint;
  expires_at_ms: bigint;
  used_at_ms: bigint | null;
  created_at_ms: bigint;
}

export interface WithdrawalAddressesTable {
  id: string;
  user_id: string;
  /** Lower-case hex. */
  address: string;
  label: string;
  activates_at_ms: bigint;
  created_at_ms: bigint;
}

export interface SecurityEventsTable {
  id: string;
  user_id: string;
  type: string;
  detail_json: string;
  ip: string | null;
  user_agent: string | null;
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

export type X402State = 'awaiting_approval' | 'approved' | 'signed' | 'settled' | 'expired' | 'abandoned';

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
}

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

export interface ApiKeysTable {
  id: string;
  wallet_id: string;
  user_id: string;
  label: string;
  key_hash: string;
  prefix: string;
  scopes: string;
  created_at_ms: bigint;
  expires_at_ms: bigint | null;
  /** When the key stops working: now on revoke, now + grace on rotation. */
  revoked_at_ms: bigint | null;
  rotated_to_key_id: string | null;
  last_used_at_ms: bigint | null;
  /** 'api_key', or 'oauth' for a connection an owner allowed an OAuth client (migration 0017). */
  type: Generated<'api_key' | 'oauth'>;
  client_id: string | null;
  /**
   * The member (user id) who made it: created or rotated the API key, or allowed the OAuth client. Null only for
   * rows of earlier releases whose maker nothing recorded (migration 0021).
   */
  created_by: string | null;
}

export interface OAuthClientsTable {
  id: string;
  name: string;
  redirect_uris_json: string;
  created_at_ms: bigint;
}

export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  user_id: string;
  member_id: string;
  wallet_id: string;
  scopes: string;
  expires_at_ms: bigint;
  used_at_ms: bigint | null;
  key_id: string | null;
}

export interface OAuthTokensTable {
  token_hash: string;
  kind: 'access' | 'refresh';
  key_id: string;
  expires_at_ms: bigint;
  used_at_ms: bigint | null;
  created_at_ms: bigint;
}

export interface PoliciesTable {
  id: string;
  wallet_id: string;
  user_id: string;
  type: string;
  params_json: string;
  active: bigint;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export interface ServiceSettingsTable {
  key: string;
  value: string;
}

export interface ChainCursorsTable {
  name: string;
  block_number: bigint;
}

export type ChainDepositStatus = 'pending' | 'credited';

export interface ChainDepositsTable {
  id: string;
  chain_id: bigint;
  tx_hash: string;
  log_index: bigint;
  block_number: bigint;
  wallet_id: string;
  from_address: string;
  to_address: string;
  amount_micros: bigint;
  status: ChainDepositStatus;
  deposit_id: string | null;
  sweep_id: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export type OutboxKind = 'payout' | 'sweep';
export type OutboxStatus = 'queued' | 'sent' | 'completed' | 'failed';

export interface ChainOutboxTable {
  id: string;
  kind: OutboxKind;
  transaction_id: string | null;
  wallet_id: string;
  from_address: string;
  to_address: string;
  amount_micros: bigint;
  status: OutboxStatus;
  nonce: bigint | null;
  raw_tx: string | null;
  tx_hashes_json: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  mined_tx_hash: string | null;
  mined_block: bigint | null;
  authorization_json: string | null;
  authorization_nonce: string | null;
  attempts: bigint;
  last_error: string | null;
  sent_at_ms: bigint | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export interface ChainLeasesTable {
  name: string;
  holder: string;
  expires_at_ms: bigint;
}

export type PolicyAction = 'created' | 'updated' | 'paused' | 'resumed' | 'deleted';

export interface PolicyChangesTable {
  id: string;
  wallet_id: string;
  user_id: string;
  policy_id: string;
  action: PolicyAction;
  actor: string;
  before_json: string | null;
  after_json: string | null;
  created_at_ms: bigint;
}

export interface WebhookEndpointsTable {
  id: string;
  user_id: string;
  url: string;
  events_json: string | null;
  description: string | null;
  secret: string;
  /** The secret the last rotation replaced; it signs too until previous_secret_expires_at_ms (0013). */
  previous_secret: string | null;
  previous_secret_expires_at_ms: bigint | null;
  lease_holder: string | null;
  lease_until_ms: bigint | null;
  /** No delivery to the endpoint before this, after a failed attempt (0013). */
  backoff_until_ms: bigint | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export interface WebhookEventsTable {
  id: string;
  user_id: string;
  type: string;
  data_json: string;
  created_at_ms: bigint;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: bigint;
  next_attempt_at_ms: bigint | null;
  response_status: bigint | null;
  last_error: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

/** See migration 0015: the kinds of mail a member turned off (JSON array); no row = every kind on. */
export interface EmailPreferencesTable {
  user_id: string;
  off_json: string;
  updated_at_ms: bigint;
}

export type EmailDeliveryStatus = 'pending' | 'sent' | 'failed' | 'dropped';

/** See migration 0015: one mail of an event to one member. */
export interface EmailDeliveriesTable {
  id: string;
  event_id: string;
  user_id: string;
  event_type: string;
  status: EmailDeliveryStatus;
  attempts: bigint;
  next_attempt_at_ms: bigint | null;
  lease_holder: string | null;
  last_error: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

/** See migration 0014: an organization; its resources carry scope_user_id in their user_id column. */
export interface OrganizationsTable {
  id: string;
  scope_user_id: string;
  require_mfa: bigint;
  created_at_ms: bigint;
}

export type MemberRole = 'owner' | 'admin' | 'approver' | 'viewer';

export interface MembersTable {
  user_id: string;
  organization_id: string;
  role: MemberRole;
  joined_at_ms: bigint;
}

export interface InvitationsTable {
  id: string;
  organization_id: string;
  email: string;
  role: MemberRole;
  token_digest: string;
  invited_by: string;
  created_at_ms: bigint;
  expires_at_ms: bigint;
  accepted_at_ms: bigint | null;
  revoked_at_ms: bigint | null;
}

export interface AuditEventsTable {
  id: string;
  organization_id: string;
  at_ms: bigint;
  actor_type: 'member' | 'agent' | 'system';
  actor_id: string;
  action: string;
  target: string | null;
  wallet_id: string | null;
  before_json: string | null;
  after_json: string | null;
  /**
   * The line's number in its organization's chain (domain/organizations/audit-chain.ts); null for a line an instance of an
   * earlier release wrote during a rolling upgrade, outside the chain.
   */
  seq: bigint | null;
  hash: string | null;
  outcome: 'pending' | 'completed' | 'refused';
  /** null while pending. */
  sealed_hash: string | null;
}

/** Each organization's last audit line: locked by the next line so that lines are numbered one by one. */
export interface AuditHeadsTable {
  organization_id: string;
  seq: bigint;
  hash: string;
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

export interface AlertsTable {
  id: string;
  user_id: string;
  wallet_id: string;
  type: 'balance_below' | 'cap_used';
  params_json: string;
  /** Keys of what fired and is not re-armed yet: ["balance"] or ["<policyId>\n<window or period start>"]. */
  fired_json: string;
  created_at_ms: bigint;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  wallets: WalletsTable;
  accounts: AccountsTable;
  ledger_transactions: LedgerTransactionsTable;
  entries: EntriesTable;
  deposits: DepositsTable;
  idempotency_keys: IdempotencyKeysTable;
  transactions: TransactionsTable;
  transaction_events: TransactionEventsTable;
  api_keys: ApiKeysTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  policies: PoliciesTable;
  service_settings: ServiceSettingsTable;
  chain_cursors: ChainCursorsTable;
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  auth_challenges: AuthChallengesTable;
  withdrawal_addresses: WithdrawalAddressesTable;
  security_events: SecurityEventsTable;
  chain_deposits: ChainDepositsTable;
  chain_outbox: ChainOutboxTable;
  chain_leases: ChainLeasesTable;
  policy_changes: PolicyChangesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  x402_payments: X402PaymentsTable;
  spending_windows: SpendingWindowsTable;
  organizations: OrganizationsTable;
  members: MembersTable;
  invitations: InvitationsTable;
  audit_events: AuditEventsTable;
  audit_heads: AuditHeadsTable;
  transaction_approvals: TransactionApprovalsTable;
  email_preferences: EmailPreferencesTable;
  email_deliveries: EmailDeliveriesTable;
  payment_denials: PaymentDenialsTable;
  alerts: AlertsTable;
}
