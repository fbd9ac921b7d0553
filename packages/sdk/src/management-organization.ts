// The management client's organization APIs: the organization, its members and invitations, alerts, the audit log.
import { segment } from './http.ts';
import { API, listOf, type Rest } from './management-apis.ts';
import type { PagePromise } from './paginate.ts';
import type {
  Alert,
  AlertListOptions,
  AlertRule,
  AuditEntry,
  AuditListOptions,
  CreatedInvitation,
  Deleted,
  Invitation,
  InviteMemberParams,
  ItemList,
  Member,
  Organization,
  Page,
  RemovedMember,
  RemoveMemberOptions,
  RevokedInvitation,
  UpdateMemberParams,
  UpdateOrganizationParams,
} from './types.ts';

export class OrganizationApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /** The caller's organization, with the caller's own role in it. */
  async get(): Promise<Organization> {
    return this.#rest({ method: 'GET', path: `${API}/organization` });
  }

  /** Owner only. `requireMfa: true`: a member without a second factor can then only enrol one. */
  async update(change: UpdateOrganizationParams): Promise<Organization> {
    return this.#rest({
      method: 'PATCH',
      path: `${API}/organization`,
      body: { requireMfa: change.requireMfa },
    });
  }
}

function memberPath(memberId: string): string {
  return `${API}/members/${segment(memberId)}`;
}

export class MembersApi {
  /** Invitations to join the organization (owner only). */
  readonly invitations: InvitationsApi;
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
    this.invitations = new InvitationsApi(rest);
  }

  /** Every member with their role and whether they have a second factor, oldest first (one response, no pages). */
  async list(): Promise<ItemList<Member>> {
    return this.#rest({ method: 'GET', path: `${API}/members` });
  }

  /** Changes a member's role from their next request on. The last owner cannot be demoted (ConflictError). */
  async update(memberId: string, change: UpdateMemberParams): Promise<Member> {
    return this.#rest({ method: 'PATCH', path: memberPath(memberId), body: { role: change.role } });
  }

  /**
   * Removes a member; their sessions end at once, and so do the API keys and OAuth connections they made unless
   * `keepKeys` (the answer lists which). The last owner cannot be removed (ConflictError).
   */
  async remove(memberId: string, options: RemoveMemberOptions = {}): Promise<RemovedMember> {
    return this.#rest({
      method: 'DELETE',
      path: memberPath(memberId),
      ...(options.keepKeys === undefined ? {} : { query: { keepKeys: String(options.keepKeys) } }),
    });
  }
}

export class InvitationsApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /** A new invitation (7 days). `token` is in this response only: send it to the invitee now. */
  async create(params: InviteMemberParams): Promise<CreatedInvitation> {
    return this.#rest({
      method: 'POST',
      path: `${API}/members/invitations`,
      body: { email: params.email, role: params.role },
    });
  }

  /** Open invitations (neither accepted, revoked nor expired), newest first, never their tokens. */
  async list(): Promise<ItemList<Invitation>> {
    return this.#rest({ method: 'GET', path: `${API}/members/invitations` });
  }

  /** Its token is refused from now on. An accepted, revoked or unknown invitation is a NotFoundError. */
  async revoke(invitationId: string): Promise<RevokedInvitation> {
    return this.#rest({ method: 'DELETE', path: `${API}/members/invitations/${segment(invitationId)}` });
  }
}

export class AlertsApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /**
   * A new alert, e.g. `{type: 'balance_below', walletId, params: {amount: '10'}}` (`balance.low`) or
   * `{type: 'cap_used', walletId, params: {percent: 80}}` (`budget.threshold`) or, on the `evm` rail,
   * `{type: 'treasury_at_risk', params: {amount: '500'}}` (`treasury.at_risk`): a webhook event and an email.
   */
  async create(rule: AlertRule): Promise<Alert> {
    const walletId = 'walletId' in rule ? rule.walletId : undefined;
    return this.#rest({
      method: 'POST',
      path: `${API}/alerts`,
      body: { type: rule.type, walletId, params: rule.params },
    });
  }

  /** The organization's alerts, newest first (one response, no pages); `walletId` for one wallet's. */
  async list(options: AlertListOptions = {}): Promise<ItemList<Alert>> {
    return this.#rest({ method: 'GET', path: `${API}/alerts`, query: { walletId: options.walletId } });
  }

  async delete(alertId: string): Promise<Deleted> {
    return this.#rest({ method: 'DELETE', path: `${API}/alerts/${segment(alertId)}` });
  }
}

export class AuditApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /**
   * Every member's REST write and what agents and the service did to transactions, newest first; filter by
   * `walletId`, `actor` (a member or key id) and `from`/`to` (inclusive).
   */
  list(options: AuditListOptions = {}): PagePromise<Page<AuditEntry>> {
    return listOf(options, (query) =>
      this.#rest({
        method: 'GET',
        path: `${API}/audit`,
        query: {
          ...query,
          walletId: options.walletId,
          actor: options.actor,
          from: instant(options.from),
          to: instant(options.to),
        },
      }),
    );
  }
}

function instant(value: string | Date | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value;
}
