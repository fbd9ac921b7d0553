// The owner's client: the REST API under /api/v1 with a session JWT (contract section 3).
import { AgentWalletClient } from './agent-client.ts';
import { type ClientOptions, HttpTransport, newIdempotencyKey, type RequestOptions } from './http.ts';
import {
  AgentWalletsApi,
  API,
  KeysApi,
  listOf,
  PoliciesApi,
  type Rest,
  type RestCall,
  TransactionsApi,
  WebhooksApi,
} from './management-apis.ts';
import { AlertsApi, AuditApi, MembersApi, OrganizationApi } from './management-organization.ts';
import { CursorPagePromise, type PagePromise } from './paginate.ts';
import type {
  Deposit,
  Health,
  MasterWallet,
  MasterWithdrawalAnswer,
  MasterWithdrawalParams,
  OwnersRequestPage,
  Page,
  PageOptions,
  PendingDeposit,
  SandboxDeposit,
  Session,
  TreasuryOwnersChange,
  TreasuryRequestsOptions,
  TreasuryRevocation,
  TreasurySignatureResult,
  TreasuryView,
  User,
  WalletBalance,
  WithdrawalAddress,
} from './types.ts';

export * from './management-apis.ts';
export * from './management-organization.ts';

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

  /**
   * Adds an address to the withdrawal book (owner; step-up: a `PermissionError` STEP_UP_REQUIRED from a session
   * older than STEP_UP_MAX_AGE_SECONDS). Usable from its `activatesAt`.
   */
  addWithdrawalAddress(params: { address: string; label: string }): Promise<WithdrawalAddress> {
    return this.#request({ method: 'POST', path: `${API}/wallet/withdrawal-addresses`, body: params });
  }

  /**
   * Withdraws from the master wallet to an active address of the book (owner; step-up). Always keyed: a retry
   * never moves the money twice. On a `bounded` treasury a withdrawal more than the float and the allowance can
   * pay waits for the owners: narrow on `status === 'awaiting_signatures'` for its `signRequest`, which each owner
   * signs and hands in with `treasurySignature`.
   */
  withdrawMaster(params: MasterWithdrawalParams): Promise<MasterWithdrawalAnswer> {
    const { idempotencyKey, ...body } = params;
    return this.#request({
      method: 'POST',
      path: `${API}/wallet/withdrawals`,
      body,
      idempotencyKey: idempotencyKey ?? newIdempotencyKey(),
    });
  }

  /**
   * `bounded` treasury only (404 `NotFoundError` elsewhere): the owners' requests — withdrawals the allowance could
   * not cover, revocations, changes of the owners — newest first, each with the `signRequest` an owner signs, the
   * signatures still needed and who signed. Any member may read it. Awaited, one page (`nextCursor` names the
   * next, null on the last); iterated with `for await`, every request from there on, page after page by cursor.
   */
  treasuryRequests(options: TreasuryRequestsOptions = {}): CursorPagePromise<OwnersRequestPage> {
    const page = (cursor: string | undefined) =>
      this.#request<OwnersRequestPage>({
        method: 'GET',
        path: `${API}/wallet/treasury/signatures`,
        query: { status: options.status, limit: options.limit, cursor },
      });
    return new CursorPagePromise(
      () => page(options.cursor),
      (cursor) => page(cursor),
    );
  }

  /**
   * `bounded` treasury only (404 `NotFoundError` elsewhere): hands in one owner's `eth_signTypedData_v4`
   * signature of a request's `signRequest` (a withdrawal answered `awaiting_signatures`, or the revocation). Owner;
   * step-up. A `ValidationError` for a signature that is not an owner's over this request, a `ConflictError` when
   * that owner signed already.
   */
  treasurySignature(id: string, signature: string): Promise<TreasurySignatureResult> {
    return this.#request({
      method: 'POST',
      path: `${API}/wallet/treasury/signatures`,
      body: { id, signature },
    });
  }

  /**
   * `bounded` treasury only (404 `NotFoundError` elsewhere): asks the owners to revoke the service's allowance —
   * the request they sign (`treasurySignature`); once signed at their threshold no refill of the service's float
   * passes on chain. The waiting request again while one waits; a `ConflictError` when nothing is left to revoke.
   * Owner; step-up.
   */
  revokeTreasuryAllowance(): Promise<TreasuryRevocation> {
    return this.#request({ method: 'POST', path: `${API}/wallet/treasury/revoke` });
  }

  /**
   * `bounded` treasury with a multisig account only (404 `NotFoundError` elsewhere): asks the owners to replace
   * their owners and threshold — the request the current owners sign (`treasurySignature`) at the current
   * threshold; once confirmed, only the new owners' signatures count. The waiting request again for the same
   * change; a `ValidationError` for duplicates, more than 16 owners, a threshold out of range or a hybrid account;
   * a `ConflictError` when the account has these owners already. Owner; step-up.
   */
  changeTreasuryOwners(owners: string[], threshold: number): Promise<TreasuryOwnersChange> {
    return this.#request({
      method: 'POST',
      path: `${API}/wallet/treasury/owners`,
      body: { owners, threshold },
    });
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
