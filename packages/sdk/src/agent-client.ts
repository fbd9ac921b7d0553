// The agent's client: the tools over `POST /mcp/v1/tools/<name>` with an API key (contract section 4).
import {
  type ClientOptions,
  HttpTransport,
  newIdempotencyKey,
  type RequestOptions,
  segment,
} from './http.ts';
import { PagePromise, paginate } from './paginate.ts';
import type {
  Balance,
  CheckPaymentParams,
  CheckPaymentResult,
  MppSignParams,
  MppSignResult,
  PaidFetchParams,
  PaidFetchResult,
  RequestApprovalParams,
  RequestApprovalResult,
  SendPaymentParams,
  SendPaymentResult,
  ToolDataMap,
  ToolList,
  ToolName,
  ToolParamsMap,
  TxHistory,
  TxHistoryOptions,
  X402FetchParams,
  X402FetchResult,
  X402SignParams,
  X402SignResult,
} from './types.ts';

export interface AgentWalletClientOptions extends ClientOptions {
  /** The agent wallet's API key (`svc_live_…`): it decides the wallet and the scopes. */
  apiKey: string;
}

/** Tools that move money: they always carry an idempotency key (generated when the caller gives none). */
const WRITE_TOOLS: ReadonlySet<string> = new Set([
  'send_payment',
  'request_approval',
  'x402_fetch',
  'x402_sign',
  'paid_fetch',
  'mpp_sign',
]);
/** Tools that change nothing: always safe to repeat. */
const READ_TOOLS: ReadonlySet<string> = new Set(['check_balance', 'get_tx_history']);

export class AgentWalletClient {
  readonly #http: HttpTransport;
  readonly #apiKey: string;

  constructor(options: AgentWalletClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('apiKey is required: the agent wallet API key (svc_live_…)');
    }
    this.#http = new HttpTransport(options);
    this.#apiKey = options.apiKey.trim();
  }

  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** Spendable and held balance, frozen flag and remaining caps of the key's wallet (scope `read`). */
  checkBalance(options?: RequestOptions): Promise<Balance> {
    return this.callTool('check_balance', {}, options);
  }

  /**
   * The wallet's transactions, newest first (scope `read`): `await` it for one page, or `for await` over it for
   * every transaction from that page on.
   */
  getTxHistory(filter: TxHistoryOptions = {}, options?: RequestOptions): PagePromise<TxHistory> {
    return new PagePromise(
      (page) =>
        this.callTool('get_tx_history', page === (filter.page ?? 1) ? filter : { ...filter, page }, options),
      filter.page ?? 1,
    );
  }

  /** Every transaction, newest first, fetched a page of `pageSize` (default 100) at a time. */
  async *transactions(filter: Omit<TxHistoryOptions, 'page' | 'limit'> = {}, pageSize = 100) {
    yield* paginate((page) => this.getTxHistory({ ...filter, page, limit: pageSize }));
  }

  /**
   * Pays `amount` USDC to `toAddress` (scope `write`). Resolves with status `completed`, `processing`, or
   * `pending` (above an approval threshold). Throws PolicyDeniedError, InsufficientBalanceError,
   * WalletFrozenError, ... An idempotency key is always sent (generated when omitted), so retries —
   * automatic with `maxRetries`, or your own with the same key — never pay twice.
   */
  sendPayment(params: SendPaymentParams, options?: RequestOptions): Promise<SendPaymentResult> {
    return this.callTool('send_payment', params, options);
  }

  /** Asks the owner to approve a payment the policies would not allow; the amount is held (scope `write`). */
  requestApproval(params: RequestApprovalParams, options?: RequestOptions): Promise<RequestApprovalResult> {
    return this.callTool('request_approval', params, options);
  }

  /**
   * What `sendPayment` would decide now — allowed, needs approval, or denied with every violation — without
   * paying, holding or storing anything (scope `read`).
   */
  checkPayment(params: CheckPaymentParams, options?: RequestOptions): Promise<CheckPaymentResult> {
    return this.callTool('check_payment', params, options);
  }

  /**
   * Fetches an HTTP resource for the agent, paying it from the wallet if it answers 402 (x402; scope `write`,
   * `evm` rail): the price is decided like `sendPayment` to the seller, never above `maxAmount`. A payment that
   * needs approval answers `payment.status: "pending"`; once approved, call again with the same idempotency key.
   */
  x402Fetch(params: X402FetchParams, options?: RequestOptions): Promise<X402FetchResult> {
    return this.callTool('x402_fetch', params, options);
  }

  /**
   * Signs an x402 payment for a 402 the agent received itself and returns the header value (scope `write`,
   * `evm` rail). See `x402Scheme` to hand this service to `@x402/fetch` as its signer.
   */
  x402Sign(params: X402SignParams, options?: RequestOptions): Promise<X402SignResult> {
    return this.callTool('x402_sign', params, options);
  }

  /**
   * Fetches an HTTP resource for the agent, paying whichever way it asks (x402 or MPP; scope `write`, `evm` rail):
   * the cheapest payable offer, decided like `sendPayment` to the seller, never above `maxAmount`.
   */
  paidFetch(params: PaidFetchParams, options?: RequestOptions): Promise<PaidFetchResult> {
    return this.callTool('paid_fetch', params, options);
  }

  /**
   * Signs an MPP payment for a challenge the agent received itself (an HTTP 402's `WWW-Authenticate: Payment`, or a
   * paid MCP tool's challenge) and returns the credential (scope `write`, `evm` rail).
   */
  mppSign(params: MppSignParams, options?: RequestOptions): Promise<MppSignResult> {
    return this.callTool('mpp_sign', params, options);
  }

  /** Every tool with its JSON Schema, whatever the key's scopes. */
  listTools(): Promise<ToolList> {
    return this.#http.request<ToolList>({
      method: 'GET',
      path: '/mcp/v1/tools',
      credential: this.#apiKey,
      retrySafe: true,
    });
  }

  /**
   * Calls a tool by name: what an LLM tool-use loop needs, e.g.
   * `client.callTool(block.name, block.input, { idempotencyKey: block.id })`. Write tools get an idempotency
   * key as the typed methods do: `params.idempotencyKey`, else `options.idempotencyKey`, else a new one.
   * Passing the model's tool-call id as the key makes re-running the same tool call pay only once.
   */
  callTool<N extends ToolName>(
    name: N,
    params?: ToolParamsMap[N],
    options?: CallToolOptions,
  ): Promise<ToolDataMap[N]>;
  callTool(name: string, params?: unknown, options?: CallToolOptions): Promise<unknown>;
  async callTool(name: string, params: unknown = {}, options: CallToolOptions = {}): Promise<unknown> {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      throw new TypeError(`the params of ${name} must be an object`);
    }
    const { idempotencyKey, body } = splitIdempotencyKey(name, params, options.idempotencyKey);
    return this.#http.request({
      method: 'POST',
      path: `/mcp/v1/tools/${segment(name)}`,
      body: { params: body },
      credential: this.#apiKey,
      idempotencyKey,
      // Read tools change nothing; with a key, the server replays the first result of a write.
      retrySafe: READ_TOOLS.has(name) || idempotencyKey !== undefined,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
  }
}

export interface CallToolOptions extends RequestOptions {
  /** The idempotency key of a write tool when `params` has none (ignored by read tools). */
  idempotencyKey?: string;
}

/** A write tool's key travels in the Idempotency-Key header: the caller's, or a new one. */
function splitIdempotencyKey(
  name: string,
  params: object,
  fallback: string | undefined,
): { idempotencyKey: string | undefined; body: Record<string, unknown> } {
  const body = { ...(params as Record<string, unknown>) };
  if (!WRITE_TOOLS.has(name)) return { idempotencyKey: undefined, body };
  const given = body.idempotencyKey;
  if (given === undefined) return { idempotencyKey: fallback ?? newIdempotencyKey(), body };
  if (typeof given !== 'string') return { idempotencyKey: undefined, body }; // the server explains the 400
  delete body.idempotencyKey;
  return { idempotencyKey: given, body };
}
