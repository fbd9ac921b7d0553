import { type HttpMethod, newIdempotencyKey, segment } from './http.ts';
import { type ItemOf, type PageOf, PagePromise } from './paginate.ts';
import type {
  AgentWallet,
  AgentWalletPage,
  ApiKey,
  CheckPaymentResult,
  CreatedApiKey,
  CreatedWebhookEndpoint,
  CreateKeyParams,
  CreateWebhookParams,
  Deleted,
  Movement,
  MoveParams,
  Page,
  PageOptions,
  Policy,
  PolicyChange,
  PolicyRule,
  RotatedApiKey,
  RotatedWebhookSecret,
  RotateKeyParams,
  RotateWebhookSecretParams,
  SimulatePaymentParams,
  Transaction,
  TransactionListOptions,
  TransactionPage,
  TransactionWithEvents,
  UpdatePolicyParams,
  UpdateWebhookParams,
  WebhookDelivery,
  WebhookEndpoint,
} from './types.ts';

export interface RestCall {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string | undefined;
}

/** Sends one REST call with the client's current token. */
export type Rest = <T>(call: RestCall) => Promise<T>;

export const API = '/api/v1';

export function pageQuery(options: PageOptions): Record<string, number | undefined> {
  return { page: options.page, limit: options.limit };
}

/**
 * A list call: the page asked for (`await` it), and with `for await` every item from there on, the following pages
 * fetched with the same filters and page size.
 */
export function listOf<P extends PageOf<ItemOf<P>>>(
  options: PageOptions,
  fetch: (query: Record<string, number | undefined>) => Promise<P>,
): PagePromise<P> {
  // The first request is the call as given (no page: the server's first); the next ones name their page.
  return new PagePromise(
    (page) => fetch(pageQuery(page === (options.page ?? 1) ? options : { ...options, page })),
    options.page ?? 1,
  );
}

export function walletPath(walletId: string): string {
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
