// Table types for Kysely. Integers are BIGINT on both engines and arrive as bigint (better-sqlite3 with
// safe integers, pg with an int8 parser), so one code path reads them. Times are epoch milliseconds.
// The tables are declared by feature under schema/ (identity, money, chain, policies, webhooks); this file is the
// database they make, and re-exports them, so every importer names store/schema.ts alone.

import type {
  ChainCursorsTable,
  ChainDepositsTable,
  ChainLeasesTable,
  ChainOutboxTable,
  ServiceSettingsTable,
  TreasuryDelegationsTable,
  TreasurySignatureRequestsTable,
} from './schema/chain.ts';
import type {
  ApiKeysTable,
  AuditEventsTable,
  AuditHeadsTable,
  AuthChallengesTable,
  EmailDeliveriesTable,
  EmailPreferencesTable,
  InvitationsTable,
  MembersTable,
  OAuthClientsTable,
  OAuthCodesTable,
  OAuthTokensTable,
  OrganizationsTable,
  PasskeysTable,
  RecoveryCodesTable,
  SecurityEventsTable,
  SessionsTable,
  TotpFactorsTable,
  UsersTable,
} from './schema/identity.ts';
import type {
  AccountsTable,
  DepositsTable,
  EntriesTable,
  IdempotencyKeysTable,
  LedgerTransactionsTable,
  PaymentDenialsTable,
  SpendingWindowsTable,
  TransactionApprovalsTable,
  TransactionEventsTable,
  TransactionsTable,
  WalletsTable,
  WithdrawalAddressesTable,
  X402PaymentsTable,
} from './schema/money.ts';
import type { AlertsTable, PoliciesTable, PolicyChangesTable } from './schema/policies.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable, WebhookEventsTable } from './schema/webhooks.ts';

export type * from './schema/chain.ts';
export type * from './schema/identity.ts';
export type * from './schema/money.ts';
export type * from './schema/policies.ts';
export type * from './schema/webhooks.ts';

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
  treasury_delegations: TreasuryDelegationsTable;
  treasury_signature_requests: TreasurySignatureRequestsTable;
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
