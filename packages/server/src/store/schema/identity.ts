// Tables of who: users and their sessions and factors, API keys, OAuth, organizations and members, the audit log,
// security events and the mail a member receives.
import type { Generated } from 'kysely';

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

export interface SecurityEventsTable {
  id: string;
  user_id: string;
  type: string;
  detail_json: string;
  ip: string | null;
  user_agent: string | null;
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
   * The line's number in its organization's chain (domain/audit-chain.ts); null for a line an instance of an
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
