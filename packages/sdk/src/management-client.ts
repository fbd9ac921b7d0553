// The owner's client: the REST API under /api/v1 with a session JWT (contract section 3).
import { AgentWalletClient } from './agent-client.ts';
import {
  type ClientOptions,
  type HttpMethod,
  HttpTransport,
  newIdempotencyKey,
  type RequestOptions,
  segment,
} from './http.ts';
import { type ItemOf, type PageOf, PagePromise } from './paginate.ts';
import type {
  AgentWallet,
  AgentWalletPage,
  Alert,
  AlertListOptions,
  AlertRule,
  ApiKey,
  AuditEntry,
  AuditListOptions,
  CheckPaymentResult,
  CreatedApiKey,
  CreatedInvitation,
  CreatedWebhookEndpoint,
  CreateKeyParams,
  CreateWebhookParams,
  Deleted,
  Deposit,
  Health,
  Invitation,
  InviteMemberParams,
  ItemList,
  MasterWallet,
  Member,
  Movement,
  MoveParams,
  Organization,
  Page,
  PageOptions,
  PendingDeposit,
  Policy,
  PolicyChange,
  PolicyRule,
  RemovedMember,
  RemoveMemberOptions,
  RevokedInvitation,
  RotatedApiKey,
  RotatedWebhookSecret,
  RotateKeyParams,
  RotateWebhookSecretParams,
  SandboxDeposit,
  Session,
  SimulatePaymentParams,
  Transaction,
  TransactionListOptions,
  TransactionPage,
  TransactionWithEvents,
  TreasuryView,
  UpdateMemberParams,
  UpdateOrganizationParams,
  UpdatePolicyParams,
  UpdateWebhookParams,
  User,
  WalletBalance,
  WebhookDelivery,
  WebhookEndpoint,
} from './types.ts';

export interface ManagementClientOptions extends ClientOptions {
  /** A session JWT from signup or login; `login()` and `signup()` set it for you. */
  token?: string;
}

export interface Credentials {
  email: string;
  /** 8–128 characters at signup. */
  password: string;
}

export interface SignupCredentials extends Credentials {
  /**
   * From `members.invitations.create` (for this same email): the account joins the inviting organization with the
   * invitation's role instead of founding its own.
   */
  invitationToken?: string;
}

interface RestCall {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string | undefined;
}

/** Sends one REST call with the client's current token. */
type Rest = <T>(call: RestCall) => Promise<T>;

const API = '/api/v1';

export class ManagementClient {
  /** Agent wallets: create, list, get, rename, fund, withdraw, freeze, unfreeze. */
  readonly agentWallets: AgentWalletsApi;
  /** API keys of an agent wallet: create (shown once), list, revoke, rotate. */
  readonly keys: KeysApi;
  /** Spending policies of an agent wallet. */
  readonly policies: PoliciesApi;
  /** Transactions of an agent wallet, and the approval of held payments. */
  readonly transactions: TransactionsApi;
  /** Webhook endpoints of the account, their delivery logs and redelivery. */
  readonly webhooks: WebhooksApi;
  /** The caller's organization and its settings (a second factor required of every member). */
  readonly organization: OrganizationApi;
  /** Members of the organization, their roles, and invitations to join it. */
  readonly members: MembersApi;
  /** Alerts on a wallet's balance or on spending against its caps. */
  readonly alerts: AlertsApi;
  /** The organization's audit log: who changed what. */
  readonly audit: AuditApi;

  readonly #http: HttpTransport;
  readonly #options: ManagementClientOptions;
  #token: string | undefined;
  /** Per-request options every call of this client carries (see withOptions). */
  #callOptions: RequestOptions = {};

  constructor(options: ManagementClientOptions) {
    this.#http = new HttpTransport(options);
    this.#options = options;
    this.#token = options.token;
    const rest: Rest = (call) => this.#request(call);
    this.agentWallets = new AgentWalletsApi(rest);
    this.keys = new KeysApi(rest);
    this.policies = new PoliciesApi(rest);
    this.transactions = new TransactionsApi(rest);
    this.webhooks = new WebhooksApi(rest);
    this.organization = new OrganizationApi(rest);
    this.members = new MembersApi(rest);
    this.alerts = new AlertsApi(rest);
    this.audit = new AuditApi(rest);
  }

  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** The session JWT sent with every call, or undefined. */
  get token(): string | undefined {
    return this.#token;
  }

  set token(token: string | undefined) {
    this.#token = token;
  }

  /**
   * The same client with per-request options for the calls made through it, e.g.
   * `mgmt.withOptions({ timeoutMs: 2_000, signal }).agentWallets.list()`. It starts with this client's token;
   * logging in or out on one does not change the other.
   */
  withOptions(options: RequestOptions): ManagementClient {
    const copy = new ManagementClient({ ...this.#options, token: this.#token });
    copy.#callOptions = { ...this.#callOptions, ...options };
    return copy;
  }

  /** An AgentWalletClient for an agent key, with this client's base URL, timeouts, retries and fetch. */
  agentClient(apiKey: string): AgentWalletClient {
    const { token: _token, ...options } = this.#options;
    return new AgentWalletClient({ ...options, apiKey });
  }

  /** `GET /health` (no authentication): database, rail (`sandbox` means simulated money) and version. */
  health(): Promise<Health> {
    return this.#request({ method: 'GET', path: `${API}/health` });
  }

  /**
   * Creates an account and keeps the returned session token: with its own organization (its owner) and master
   * wallet, or with `invitationToken` as a member of the organization that invited this email.
   */
  async signup(credentials: SignupCredentials): Promise<Session> {
    const session = await this.#request<Session>({
      method: 'POST',
      path: `${API}/auth/signup`,
      body: {
        email: credentials.email,
        password: credentials.password,
        invitationToken: credentials.invitationToken,
      },
    });
    this.#token = session.token;
    return session;
  }

  /** Logs in and keeps the returned session token (valid for 7 days). */
  async login(credentials: Credentials): Promise<Session> {
    const session = await this.#request<Session>({
      method: 'POST',
      path: `${API}/auth/login`,
      body: { email: credentials.email, password: credentials.password },
    });
    this.#token = session.token;
    return session;
  }

  /** Ends the session on the server (the token is refused from now on) and forgets the token. */
  async logout(): Promise<{ loggedOut: true }> {
    const result = await this.#request<{ loggedOut: true }>({ method: 'POST', path: `${API}/auth/logout` });
    this.#token = undefined;
    return result;
  }

  me(): Promise<{ user: User }> {
    return this.#request({ method: 'GET', path: `${API}/auth/me` });
  }

  /** The master wallet, which funds the agent wallets. */
  wallet(): Promise<MasterWallet> {
    return this.#request({ method: 'GET', path: `${API}/wallet` });
  }

  walletBalance(): Promise<WalletBalance> {
    return this.#request({ method: 'GET', path: `${API}/wallet/balance` });
  }

  /** Deposits into the master wallet, newest first. */
  deposits(options: PageOptions = {}): PagePromise<Page<Deposit>> {
    return listOf(options, (query) =>
      this.#request({ method: 'GET', path: `${API}/wallet/deposits`, query }),
    );
  }

  /** `evm` rail only (404 elsewhere): USDC transfers on their way in, not deep enough to be credited yet. */
  pendingDeposits(options: PageOptions = {}): PagePromise<Page<PendingDeposit>> {
    return listOf(options, (query) =>
      this.#request({ method: 'GET', path: `${API}/wallet/deposits/pending`, query }),
    );
  }

  /**
   * `evm` rail only (404 `NotFoundError` elsewhere): where the treasury rests and what a breach of the server could
   * move (`atRisk`). A `ServerError` (503 SERVICE_UNAVAILABLE) while the chain cannot be read.
   */
  walletTreasury(): Promise<TreasuryView> {
    return this.#request({ method: 'GET', path: `${API}/wallet/treasury` });
  }

  /** Credits the master wallet with simulated money: only on a server whose rail is `sandbox`. */
  sandboxDeposit(amount: string): Promise<SandboxDeposit> {
    return this.#request({ method: 'POST', path: `${API}/wallet/sandbox/deposit`, body: { amount } });
  }

  #request<T>(call: RestCall): Promise<T> {
    return this.#http.request<T>({
      ...call,
      credential: this.#token,
      // A write is repeated only when the server can recognise the repeat (an idempotency key).
      retrySafe: call.method === 'GET' || call.idempotencyKey !== undefined,
      signal: this.#callOptions.signal,
      timeoutMs: this.#callOptions.timeoutMs,
    });
  }
}

function pageQuery(options: PageOptions): Record<string, number | undefined> {
  return { page: options.page, limit: options.limit };
}

/**
 * A list call: the page asked for (`await` it), and with `for await` every item from there on, the following pages
 * fetched with the same filters and page size.
 */
function listOf<P extends PageOf<ItemOf<P>>>(
  options: PageOptions,
  fetch: (query: Record<string, number | undefined>) => Promise<P>,
): PagePromise<P> {
  // The first request is the call as given (no page: the server's first); the next ones name their page.
  return new PagePromise(
    (page) => fetch(pageQuery(page === (options.page ?? 1) ? options : { ...options, page })),
    options.page ?? 1,
  );
}

function walletPath(walletId: string): string {
  return `${API}/agent-wallets/${segment(walletId)}`;
}

export class AgentWalletsApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /** A new, empty agent wallet with its own address. */
  async create(params: { label: string }): Promise<AgentWallet> {
    return this.#rest({ method: 'POST', path: `${API}/agent-wallets`, body: { label: params.label } });
  }

  /** A page of wallets; `pendingApprovals` counts the waiting payments of all the user's wallets. */
  list(options: PageOptions = {}): PagePromise<AgentWalletPage> {
    return listOf(options, (query) => this.#rest({ method: 'GET', path: `${API}/agent-wallets`, query }));
  }

  async get(walletId: string): Promise<AgentWallet> {
    return this.#rest({ method: 'GET', path: walletPath(walletId) });
  }

  async rename(walletId: string, label: string): Promise<AgentWallet> {
    return this.#rest({ method: 'PATCH', path: walletPath(walletId), body: { label } });
  }

  /** Moves `amount` from the master wallet to the agent wallet, atomically. */
  async fund(walletId: string, params: MoveParams): Promise<Movement> {
    return this.#move('fund', walletId, params);
  }

  /** Moves available (not held) `amount` from the agent wallet back to the master wallet. */
  async withdraw(walletId: string, params: MoveParams): Promise<Movement> {
    return this.#move('withdraw', walletId, params);
  }

  /** Every write tool of the wallet answers WALLET_FROZEN until unfrozen; reads and owner actions work. */
  async freeze(walletId: string): Promise<AgentWallet> {
    return this.#rest({ method: 'POST', path: `${walletPath(walletId)}/freeze` });
  }

  async unfreeze(walletId: string): Promise<AgentWallet> {
    return this.#rest({ method: 'POST', path: `${walletPath(walletId)}/unfreeze` });
  }

  #move(direction: 'fund' | 'withdraw', walletId: string, params: MoveParams): Promise<Movement> {
    return this.#rest({
      method: 'POST',
      path: `${walletPath(walletId)}/${direction}`,
      body: { amount: params.amount },
      // Always keyed, like sendPayment: a retried fund or withdraw can never move the money twice.
      idempotencyKey: params.idempotencyKey ?? newIdempotencyKey(),
    });
  }
}

export class KeysApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /** A new API key for the wallet. `key` is in this response only: store it now. */
  async create(walletId: string, params: CreateKeyParams): Promise<CreatedApiKey> {
    const expiresAt = params.expiresAt instanceof Date ? params.expiresAt.toISOString() : params.expiresAt;
    return this.#rest({
      method: 'POST',
      path: `${walletPath(walletId)}/keys`,
      body: { label: params.label, scopes: params.scopes, expiresAt },
    });
  }

  /** Prefixes and metadata, never the keys. Newest first. */
  list(walletId: string, options: PageOptions = {}): PagePromise<Page<ApiKey>> {
    return listOf(options, (query) =>
      this.#rest({ method: 'GET', path: `${walletPath(walletId)}/keys`, query }),
    );
  }

  /** The key is refused from the next request on. */
  async revoke(walletId: string, keyId: string): Promise<ApiKey> {
    return this.#rest({ method: 'POST', path: `${walletPath(walletId)}/keys/${segment(keyId)}/revoke` });
  }

  /** A new key with the same label and scopes; the old one works for `gracePeriodSeconds` more (default 3600). */
  async rotate(walletId: string, keyId: string, params: RotateKeyParams = {}): Promise<RotatedApiKey> {
    return this.#rest({
      method: 'POST',
      path: `${walletPath(walletId)}/keys/${segment(keyId)}/rotate`,
      body: { gracePeriodSeconds: params.gracePeriodSeconds },
    });
  }
}

export class PoliciesApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /** Adds a policy, e.g. `{type: 'spend_cap_per_tx', params: {limit: '50'}}`. Several may be active. */
  async create(walletId: string, rule: PolicyRule): Promise<Policy> {
    return this.#rest({
      method: 'POST',
      path: `${walletPath(walletId)}/policies`,
      body: { type: rule.type, params: rule.params },
    });
  }

  /** Active and paused policies, newest first. */
  list(walletId: string, options: PageOptions = {}): PagePromise<Page<Policy>> {
    return listOf(options, (query) =>
      this.#rest({ method: 'GET', path: `${walletPath(walletId)}/policies`, query }),
    );
  }

  /** New params (for the same type) and/or `active: false` to pause. */
  async update(walletId: string, policyId: string, change: UpdatePolicyParams): Promise<Policy> {
    return this.#rest({
      method: 'PATCH',
      path: `${walletPath(walletId)}/policies/${segment(policyId)}`,
      body: { params: change.params, active: change.active },
    });
  }

  async delete(walletId: string, policyId: string): Promise<Deleted> {
    return this.#rest({ method: 'DELETE', path: `${walletPath(walletId)}/policies/${segment(policyId)}` });
  }

  /** What `send_payment` would decide for this payment now (like `check_payment`); nothing is stored or held. */
  async simulate(walletId: string, params: SimulatePaymentParams): Promise<CheckPaymentResult> {
    return this.#rest({
      method: 'POST',
      path: `${walletPath(walletId)}/policies/simulate`,
      body: { toAddress: params.toAddress, amount: params.amount },
    });
  }

  /** The policy audit trail: every policy created, updated, paused, resumed or deleted, newest first. */
  changes(walletId: string, options: PageOptions = {}): PagePromise<Page<PolicyChange>> {
    return listOf(options, (query) =>
      this.#rest({ method: 'GET', path: `${walletPath(walletId)}/policies/changes`, query }),
    );
  }
}

export class TransactionsApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /** Payments, incoming payments, funding and withdrawals, newest first; filter with `status`. */
  list(walletId: string, options: TransactionListOptions = {}): PagePromise<TransactionPage<Transaction>> {
    return listOf(options, (query) =>
      this.#rest({
        method: 'GET',
        path: `${walletPath(walletId)}/transactions`,
        query: { ...query, status: options.status },
      }),
    );
  }

  /** Held payments awaiting the owner's decision, with the policies each would violate. */
  pending(walletId: string, options: PageOptions = {}): PagePromise<TransactionPage<Transaction>> {
    return listOf(options, (query) =>
      this.#rest({ method: 'GET', path: `${walletPath(walletId)}/transactions/pending`, query }),
    );
  }

  /** One transaction with its audit trail (`events`). */
  async get(walletId: string, transactionId: string): Promise<TransactionWithEvents> {
    return this.#rest({
      method: 'GET',
      path: `${walletPath(walletId)}/transactions/${segment(transactionId)}`,
    });
  }

  /** Executes a held payment (policies are not evaluated again). ConflictError unless it is pending. */
  async approve(walletId: string, transactionId: string): Promise<Transaction> {
    return this.#rest({
      method: 'POST',
      path: `${walletPath(walletId)}/transactions/${segment(transactionId)}/approve`,
    });
  }

  /** Releases the hold back to the agent wallet's balance. */
  async reject(
    walletId: string,
    transactionId: string,
    params: { reason?: string } = {},
  ): Promise<Transaction> {
    return this.#rest({
      method: 'POST',
      path: `${walletPath(walletId)}/transactions/${segment(transactionId)}/reject`,
      body: params.reason === undefined ? undefined : { reason: params.reason },
    });
  }
}

function webhookPath(endpointId: string): string {
  return `${API}/webhooks/${segment(endpointId)}`;
}

export class WebhooksApi {
  readonly #rest: Rest;

  constructor(rest: Rest) {
    this.#rest = rest;
  }

  /** A new endpoint. `secret` is in this response only: store it now. */
  async create(params: CreateWebhookParams): Promise<CreatedWebhookEndpoint> {
    return this.#rest({
      method: 'POST',
      path: `${API}/webhooks`,
      body: { url: params.url, events: params.events, description: params.description },
    });
  }

  /** The account's endpoints, newest first (never their secrets). */
  list(options: PageOptions = {}): PagePromise<Page<WebhookEndpoint>> {
    return listOf(options, (query) => this.#rest({ method: 'GET', path: `${API}/webhooks`, query }));
  }

  /** Changes the URL, the events (null: all) or the description. */
  async update(endpointId: string, change: UpdateWebhookParams): Promise<WebhookEndpoint> {
    return this.#rest({
      method: 'PATCH',
      path: webhookPath(endpointId),
      body: { url: change.url, events: change.events, description: change.description },
    });
  }

  /** No more events go to the endpoint; its waiting deliveries are dropped. */
  async delete(endpointId: string): Promise<Deleted> {
    return this.#rest({ method: 'DELETE', path: webhookPath(endpointId) });
  }

  /**
   * A new signing secret, in this response only. Until `previousSecretExpiresAt` deliveries carry both
   * signatures (`verifyWebhook` accepts either), so receivers can switch secrets without losing an event.
   */
  async rotateSecret(
    endpointId: string,
    params: RotateWebhookSecretParams = {},
  ): Promise<RotatedWebhookSecret> {
    return this.#rest({
      method: 'POST',
      path: `${webhookPath(endpointId)}/rotate-secret`,
      body: { overlapSeconds: params.overlapSeconds },
    });
  }

  /** The endpoint's delivery log, newest first. */
  deliveries(endpointId: string, options: PageOptions = {}): PagePromise<Page<WebhookDelivery>> {
    return listOf(options, (query) =>
      this.#rest({ method: 'GET', path: `${webhookPath(endpointId)}/deliveries`, query }),
    );
  }

  /** Queues the delivery's event to be sent again (same event id). */
  async redeliver(endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    return this.#rest({
      method: 'POST',
      path: `${webhookPath(endpointId)}/deliveries/${segment(deliveryId)}/redeliver`,
    });
  }
}

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
   * `{type: 'cap_used', walletId, params: {percent: 80}}` (`budget.threshold`): a webhook event and an email.
   */
  async create(rule: AlertRule): Promise<Alert> {
    return this.#rest({
      method: 'POST',
      path: `${API}/alerts`,
      body: { type: rule.type, walletId: rule.walletId, params: rule.params },
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
