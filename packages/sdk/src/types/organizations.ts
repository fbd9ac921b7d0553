// The owner's REST API: organizations and members, alerts, the audit log.
import type { Amount, PageOptions, Timestamp } from './common.ts';
import type { Deleted } from './policies.ts';
import type { MemberRole } from './wallets.ts';

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

export type AlertType = 'balance_below' | 'cap_used' | 'treasury_at_risk';

/** `balance_below`: `balance.low` once when the watched wallet's balance falls below `amount`. */
export interface BalanceBelowParams {
  amount: Amount;
}

/** `cap_used`: `budget.threshold` once per cap when spending reaches `percent` (1–100) of any cap. */
export interface CapUsedParams {
  /** A whole number, 1–100. */
  percent: number;
}

/**
 * `treasury_at_risk` (`evm` rail): `treasury.at_risk` once when what a breach of the server could take (the
 * treasury's `atRisk`) rises above `amount`; again only after it was back at or below.
 */
export interface TreasuryAtRiskParams {
  amount: Amount;
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
    }
  | {
      type: 'treasury_at_risk';
      /** Watches the service's treasury, not a wallet: no walletId. */
      params: TreasuryAtRiskParams;
    };

export interface Alert {
  id: string;
  type: AlertType;
  /**
   * The wallet watched (the master wallet's id for a `balance_below` created without one, and for a
   * `treasury_at_risk`, which the organization keeps with it).
   */
  walletId: string;
  params: BalanceBelowParams | CapUsedParams | TreasuryAtRiskParams;
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
