// The dashboard's one way to the server: the SDK's ManagementClient (same origin, the session JWT), with a fetch
// adapter that adds what a page in a browser needs on top of the SDK:
// - the RateLimit-* headers are remembered per bucket, so background work (polling) can hold back;
// - 429: a GET (or a write carrying an Idempotency-Key) waits Retry-After seconds and is sent again once,
//   announced through subscribeWaits() (the header's countdown); further GETs to a refused bucket wait out the
//   refusal instead of collecting more 429s; other writes fail at once, for the person to decide;
// - 401 UNAUTHORIZED on a request that carried the session ends the session (onUnauthorized);
// - 403 MFA_ENROLLMENT_REQUIRED (the organization requires a second factor this member lacks) and 403
//   FORBIDDEN_ROLE (the member's role changed) are announced (onRefused), so the app can send the person to enrol
//   or load their role again instead of showing the same refusal everywhere.
// The SDK itself retries network errors and 5xx of reads and keyed writes (never a plain write), backoff < 1 s.
import { type FetchInit, type FetchLike, type FetchResponse, ManagementClient } from '@agent-wallet/sdk';
import { type AlertsApi, alertsApi } from './alerts.ts';
import { type CustodyApi, custodyApi } from './custody.ts';
import { ApiError } from './errors.ts';
import { type OAuthApi, oauthApi } from './oauth.ts';
import { type OrganizationApi, organizationApi } from './organization.ts';
import type { Method, RequestParams } from './request.ts';
import { isStepUpPath, type StepUpAsk, StepUpGate, type StepUpMethod, stepUpMethods } from './stepUp.ts';
import { type TreasuryApi, treasuryApi } from './treasury.ts';
import { treasuryPasskeyApi } from './treasuryPasskey.ts';

/** The 403s the app as a whole reacts to (see onRefused). */
export type RefusalCode = 'MFA_ENROLLMENT_REQUIRED' | 'FORBIDDEN_ROLE';

export interface BucketBudget {
  limit: number;
  remaining: number;
  /** Epoch ms when the oldest counted request leaves the window. */
  resetAt: number;
}

export interface ClientOptions {
  /** Origin of the API; default the page's own. */
  origin?: string;
  fetch?: typeof fetch;
  onUnauthorized?: () => void;
  /** A request carrying the session was refused with one of these codes. */
  onRefused?: (code: RefusalCode) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Longest we ever wait before an automatic retry, whatever Retry-After says. */
const MAX_AUTO_WAIT_SECONDS = 120;
const DEFAULT_RETRY_AFTER_SECONDS = 5;
const API_PREFIX = '/api/v1';
/** Per attempt of a request() call, like the SDK's default; also the repeat of a request after a step-up. */
const REQUEST_TIMEOUT_MS = 30_000;
/** request(): retries of a read or a keyed write after a network error or a 5xx, like the SDK's. */
const REQUEST_RETRIES = 2;
const REQUEST_RETRY_BASE_MS = 200;

/** The server's rate-limit bucket a request counts against (contract section 5), as far as a client can tell. */
export function bucketOf(method: string, path: string): string {
  const bare = (path.split('?')[0] ?? path).replace(/^\/api\/v1(?=\/)/, '');
  if (method === 'GET' && (bare === '/wallet' || bare.startsWith('/wallet/'))) return 'wallet';
  if (bare === '/agent-wallets' || bare.startsWith('/agent-wallets/')) return 'agent_wallets';
  return `${method} ${bare}`;
}

export function parseRetryAfter(headers: { get(name: string): string | null }): number {
  for (const name of ['retry-after', 'ratelimit-reset']) {
    const value = headers.get(name);
    if (value !== null && /^[0-9]+$/.test(value.trim())) return Math.max(1, Number(value.trim()));
  }
  return DEFAULT_RETRY_AFTER_SECONDS;
}

export class ApiClient {
  /** The SDK client every view calls. */
  readonly sdk: ManagementClient;
  /** The custody routes the SDK has no methods for (second factor, sessions, withdrawals): see custody.ts. */
  readonly custody: CustodyApi = custodyApi(this);
  /** Members, invitations, the organization and its audit log: see organization.ts. */
  readonly org: OrganizationApi = organizationApi(this);
  /** Alerts on a balance or on a share of a cap: see alerts.ts. */
  readonly alerts: AlertsApi = alertsApi(this);
  /** The consent page of OAuth for agent hosts (preview a client's request, allow or deny it): see oauth.ts. */
  readonly oauth: OAuthApi = oauthApi(this);
  /** A bounded treasury's owners: what waits for their signatures, a signature, the revocation: treasury.ts. */
  readonly treasury: TreasuryApi = treasuryApi(this);
  /** A hybrid treasury account's requests signed with the owner's passkey: treasuryPasskey.ts. */
  readonly treasuryPasskey = treasuryPasskeyApi(this);
  /** Holds a request refused with STEP_UP_REQUIRED until the person proved presence (see setStepUpAsk). */
  readonly stepUp = new StepUpGate();
  private readonly origin: string;
  private readonly fetchImpl: typeof fetch;
  private readonly onUnauthorized: (() => void) | undefined;
  private readonly onRefused: ((code: RefusalCode) => void) | undefined;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly budgets = new Map<string, BucketBudget>();
  private readonly blockedUntil = new Map<string, number>();
  private readonly waits = new Map<number, number>();
  private readonly waitListeners = new Set<() => void>();
  private nextWaitId = 1;
  private waitUntil: number | null = null;

  constructor(options: ClientOptions = {}) {
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.onUnauthorized = options.onUnauthorized;
    this.onRefused = options.onRefused;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? (() => Date.now());
    this.origin = options.origin ?? globalThis.location?.origin ?? 'http://localhost';
    this.sdk = new ManagementClient({
      baseUrl: this.origin,
      fetch: this.send,
      // 429s are this adapter's (Retry-After is at least 1 s, above this cap); transient failures the SDK's.
      maxRetries: 2,
      retryBaseDelayMs: 200,
      retryDelayMaxMs: 999,
    });
  }

  setToken(token: string | undefined) {
    this.sdk.token = token;
  }

  /** Who is asked when a request needs a step-up (the app's dialog); null: nobody, the refusal stands. */
  setStepUpAsk(ask: StepUpAsk | null) {
    this.stepUp.setAsk(ask);
  }

  /**
   * A REST call the SDK has no method for (the owner's custody routes: second factor, sessions, withdrawals),
   * through the same adapter: rate-limit handling, the end of the session on a 401, step-up. `path` is under
   * /api/v1. Resolves with the envelope's data; a failure is an ApiError. Reads and keyed writes are retried
   * after a network error or a 5xx, like the SDK's calls.
   */
  async request<T>(method: Method, path: string, params: RequestParams = {}): Promise<T> {
    const url = new URL(API_PREFIX + path, this.origin);
    for (const [name, value] of Object.entries(params.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = this.sdk.token;
    if (token !== undefined && token !== '') headers.authorization = `Bearer ${token}`;
    if (params.idempotencyKey !== undefined) headers['idempotency-key'] = params.idempotencyKey;
    const init: FetchInit = { method, headers };
    if (params.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(params.body);
    }
    const retrySafe = method === 'GET' || params.idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt += 1) {
      let response: FetchResponse;
      let text: string;
      try {
        response = await this.exchange(
          url.toString(),
          { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) },
          params.holdForStepUp ?? true,
        );
        text = await response.text();
      } catch {
        if (retrySafe && attempt < REQUEST_RETRIES) {
          await this.sleep(REQUEST_RETRY_BASE_MS * 2 ** attempt);
          continue;
        }
        throw new ApiError('NETWORK_ERROR', 0, '');
      }
      const transient =
        response.status >= 500 && response.status !== 501 && !/"TX_EXECUTION_FAILED"/.test(text);
      if (transient && retrySafe && attempt < REQUEST_RETRIES) {
        await this.sleep(REQUEST_RETRY_BASE_MS * 2 ** attempt);
        continue;
      }
      return unwrap<T>(response, text);
    }
  }

  /** The last RateLimit-* headers seen for a bucket, if still meaningful. */
  budget(bucket: string): BucketBudget | undefined {
    const budget = this.budgets.get(bucket);
    if (budget === undefined || budget.resetAt <= this.now()) return undefined;
    return budget;
  }

  /** When an automatic retry is waiting, the epoch ms it will fire at (the latest of several); else null. */
  getWaitUntil = (): number | null => this.waitUntil;

  subscribeWaits = (listener: () => void): (() => void) => {
    this.waitListeners.add(listener);
    return () => this.waitListeners.delete(listener);
  };

  /** The FetchLike handed to the SDK: a STEP_UP_REQUIRED refusal is held while the person proves presence. */
  private readonly send: FetchLike = (url, init) => this.exchange(url, init, true);

  /**
   * Asks the person to prove presence (the app's step-up dialog) for a request sent with `holdForStepUp: false`:
   * true once they did, false when they declined (or nobody can be asked).
   */
  proveStepUp(methods: StepUpMethod[]): Promise<boolean> {
    return this.stepUp.request(methods);
  }

  private async exchange(url: string, init: FetchInit, holdForStepUp: boolean): Promise<FetchResponse> {
    const path = new URL(url).pathname;
    const bucket = bucketOf(init.method, path);
    const retryOnce = init.method === 'GET' || init.headers['idempotency-key'] !== undefined;
    // A GET to a bucket the server just refused waits out the refusal instead of spending another 429.
    const blocked = this.blockedUntil.get(bucket) ?? 0;
    if (init.method === 'GET' && blocked > this.now())
      await this.wait(Math.ceil((blocked - this.now()) / 1000));
    let response = await this.fetchOnce(url, init, bucket);
    if (response.status === 429) {
      const seconds = parseRetryAfter(response.headers);
      this.blockedUntil.set(bucket, this.now() + seconds * 1000);
      if (retryOnce) {
        await this.wait(seconds);
        response = await this.fetchOnce(url, init, bucket);
        if (response.status === 429) {
          this.blockedUntil.set(bucket, this.now() + parseRetryAfter(response.headers) * 1000);
        }
      }
    }
    if (holdForStepUp && response.status === 403 && !isStepUpPath(path)) {
      const methods = stepUpMethods(response.status, await response.text());
      if (methods !== null && (await this.stepUp.request(methods))) {
        // Nothing was done the first time (the refusal comes before any change), so the same request goes again.
        // The SDK's timeout may have fired while the person answered: the repeat then has a timeout of its own.
        const signal = init.signal?.aborted ? AbortSignal.timeout(REQUEST_TIMEOUT_MS) : init.signal;
        response = await this.fetchOnce(
          url,
          { ...init, ...(signal === undefined ? {} : { signal }) },
          bucket,
        );
      }
    }
    if (response.status === 403 && init.headers.authorization !== undefined && path.startsWith(API_PREFIX)) {
      const refusal = refusalCode(await response.text());
      if (refusal !== null) this.onRefused?.(refusal);
    }
    if (response.status === 401 && init.headers.authorization !== undefined && path.startsWith(API_PREFIX)) {
      if (/"UNAUTHORIZED"/.test(await response.text())) this.onUnauthorized?.();
    }
    return response;
  }

  private async fetchOnce(url: string, init: FetchInit, bucket: string): Promise<FetchResponse> {
    const response = await this.fetchImpl(url, {
      method: init.method,
      headers: init.headers,
      body: init.body ?? null,
      signal: init.signal ?? null,
      credentials: 'same-origin',
      cache: 'no-store',
    });
    this.rememberBudget(bucket, response.headers);
    // Read once, hand out as often as asked (the 401 check above and the SDK both read it).
    const text = response.text().catch(() => '');
    return { status: response.status, headers: response.headers, text: () => text };
  }

  private async wait(seconds: number): Promise<void> {
    const capped = Math.min(Math.max(1, seconds), MAX_AUTO_WAIT_SECONDS);
    const id = this.nextWaitId++;
    this.waits.set(id, this.now() + capped * 1000);
    this.publishWaits();
    try {
      await this.sleep(capped * 1000);
    } finally {
      this.waits.delete(id);
      this.publishWaits();
    }
  }

  private publishWaits() {
    const values = [...this.waits.values()];
    this.waitUntil = values.length === 0 ? null : Math.max(...values);
    for (const listener of this.waitListeners) listener();
  }

  private rememberBudget(bucket: string, headers: Headers) {
    const limit = Number(headers.get('ratelimit-limit'));
    const remaining = Number(headers.get('ratelimit-remaining'));
    const reset = Number(headers.get('ratelimit-reset'));
    if (!headers.has('ratelimit-remaining') || !Number.isFinite(remaining) || !Number.isFinite(reset)) return;
    this.budgets.set(bucket, { limit, remaining, resetAt: this.now() + reset * 1000 });
  }
}

/** MFA_ENROLLMENT_REQUIRED or FORBIDDEN_ROLE when a 403's body names one, else null. */
export function refusalCode(text: string): RefusalCode | null {
  if (/"code"\s*:\s*"MFA_ENROLLMENT_REQUIRED"/.test(text)) return 'MFA_ENROLLMENT_REQUIRED';
  if (/"code"\s*:\s*"FORBIDDEN_ROLE"/.test(text)) return 'FORBIDDEN_ROLE';
  return null;
}

/** The data of a success envelope, or the failure as an ApiError (with the error's extra fields). */
function unwrap<T>(response: FetchResponse, text: string): T {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const envelope = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (response.status >= 200 && response.status < 300 && envelope.success === true && 'data' in envelope) {
    return envelope.data as T;
  }
  const error = envelope.error;
  if (envelope.success !== false || typeof error !== 'object' || error === null) {
    const unavailable = response.status >= 500 && response.status !== 501;
    throw new ApiError(unavailable ? 'SERVICE_UNAVAILABLE' : 'BAD_RESPONSE', response.status, '');
  }
  const { code, message, ...details } = error as Record<string, unknown>;
  return failWith(
    typeof code === 'string' ? code : 'BAD_RESPONSE',
    response,
    typeof message === 'string' ? message : '',
    details,
  );
}

function failWith(
  code: string,
  response: FetchResponse,
  message: string,
  details: Record<string, unknown>,
): never {
  const violations = Array.isArray(details.violations)
    ? (details.violations as ApiError['violations'])
    : undefined;
  throw new ApiError(code, response.status, message, {
    ...(response.status === 429 ? { retryAfter: parseRetryAfter(response.headers) } : {}),
    ...(violations === undefined ? {} : { violations }),
    details,
  });
}
