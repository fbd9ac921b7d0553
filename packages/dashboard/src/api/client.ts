// The one way the dashboard talks to the server: same-origin REST under /api/v1, JSON envelopes in and out.
// - failures become ApiError (words, never raw JSON);
// - 401 UNAUTHORIZED on an authenticated request ends the session (onUnauthorized);
// - 429: a GET (or a write carrying an Idempotency-Key) waits Retry-After seconds and is retried once by
//   itself, announced through subscribeWaits(); other writes fail with the wait in the error, for the
//   person to retry;
// - the RateLimit-* headers are remembered per bucket so background work (the poller) can hold back.
import { ApiError } from './errors.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  idempotencyKey?: string;
  /** Send the session token (default true). */
  auth?: boolean;
}

export interface ClientOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
  getToken: () => string | null;
  onUnauthorized?: (error: ApiError) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface BucketBudget {
  limit: number;
  remaining: number;
  /** Epoch ms when the oldest counted request leaves the window. */
  resetAt: number;
}

/** Longest we ever wait before an automatic retry, whatever Retry-After says. */
const MAX_AUTO_WAIT_SECONDS = 120;
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** The server's rate-limit bucket a request counts against (contract section 5), as far as a client can tell. */
export function bucketOf(method: Method, path: string): string {
  const bare = path.split('?')[0] ?? path;
  if (method === 'GET' && (bare === '/wallet' || bare.startsWith('/wallet/'))) return 'wallet';
  if (bare === '/agent-wallets' || bare.startsWith('/agent-wallets/')) return 'agent_wallets';
  return `${method} ${bare}`;
}

export function parseRetryAfter(headers: Headers): number {
  for (const name of ['retry-after', 'ratelimit-reset']) {
    const value = headers.get(name);
    if (value !== null && /^[0-9]+$/.test(value.trim())) return Math.max(1, Number(value.trim()));
  }
  return DEFAULT_RETRY_AFTER_SECONDS;
}

export class ApiClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly getToken: () => string | null;
  private readonly onUnauthorized: ((error: ApiError) => void) | undefined;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly budgets = new Map<string, BucketBudget>();
  private readonly blockedUntil = new Map<string, number>();
  private readonly waits = new Map<number, number>();
  private readonly waitListeners = new Set<() => void>();
  private nextWaitId = 1;
  private waitUntil: number | null = null;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl ?? '/api/v1';
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.getToken = options.getToken;
    this.onUnauthorized = options.onUnauthorized;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? (() => Date.now());
  }

  get<T>(path: string, query?: RequestOptions['query'], options: Omit<RequestOptions, 'query'> = {}) {
    return this.request<T>('GET', path, { ...options, query });
  }

  post<T>(path: string, body?: unknown, options: Omit<RequestOptions, 'body'> = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  patch<T>(path: string, body: unknown) {
    return this.request<T>('PATCH', path, { body });
  }

  delete<T>(path: string) {
    return this.request<T>('DELETE', path);
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

  async request<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
    const bucket = bucketOf(method, path);
    const autoRetry = method === 'GET' || options.idempotencyKey !== undefined;
    // A GET to a bucket the server just refused waits out the refusal instead of spending another 429.
    const blocked = this.blockedUntil.get(bucket) ?? 0;
    if (method === 'GET' && blocked > this.now()) await this.wait(Math.ceil((blocked - this.now()) / 1000));
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.send<T>(method, path, options, bucket);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'RATE_LIMITED') throw error;
        this.blockedUntil.set(bucket, this.now() + (error.retryAfter ?? 1) * 1000);
        if (!autoRetry || attempt >= 1) throw error;
        await this.wait(error.retryAfter ?? 1);
      }
    }
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

  private async send<T>(method: Method, path: string, options: RequestOptions, bucket: string): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = options.auth === false ? null : this.getToken();
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const hasBody = options.body !== undefined;
    if (hasBody) headers['content-type'] = 'application/json';

    let response: Response;
    try {
      response = await this.fetchImpl(this.url(path, options.query), {
        method,
        headers,
        body: hasBody ? JSON.stringify(options.body) : null,
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError('NETWORK_ERROR', 0, 'network error');
    }
    this.rememberBudget(bucket, response.headers);

    const text = await response.text().catch(() => '');
    let envelope: unknown;
    try {
      envelope = text === '' ? undefined : JSON.parse(text);
    } catch {
      envelope = undefined;
    }
    if (isSuccess(envelope) && response.ok) return envelope.data as T;

    const failure = isFailure(envelope) ? envelope.error : undefined;
    if (response.status === 429) {
      throw new ApiError('RATE_LIMITED', 429, failure?.message ?? 'rate limited', {
        retryAfter: parseRetryAfter(response.headers),
      });
    }
    if (failure === undefined) {
      const code = response.status >= 500 && response.status !== 501 ? 'SERVICE_UNAVAILABLE' : 'BAD_RESPONSE';
      throw new ApiError(response.ok ? 'BAD_RESPONSE' : code, response.status, '');
    }
    const violations = Array.isArray(failure.violations) ? failure.violations : undefined;
    const error = new ApiError(
      failure.code,
      response.status,
      failure.message,
      violations ? { violations } : {},
    );
    if (response.status === 401 && failure.code === 'UNAUTHORIZED' && token !== null) {
      this.onUnauthorized?.(error);
    }
    throw error;
  }

  private url(path: string, query: RequestOptions['query']): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== '') params.set(name, String(value));
    }
    const search = params.toString();
    return `${this.baseUrl}${path}${search === '' ? '' : `?${search}`}`;
  }

  private rememberBudget(bucket: string, headers: Headers) {
    const limit = Number(headers.get('ratelimit-limit'));
    const remaining = Number(headers.get('ratelimit-remaining'));
    const reset = Number(headers.get('ratelimit-reset'));
    if (!headers.has('ratelimit-remaining') || !Number.isFinite(remaining) || !Number.isFinite(reset)) return;
    this.budgets.set(bucket, { limit, remaining, resetAt: this.now() + reset * 1000 });
  }
}

interface SuccessEnvelope {
  success: true;
  data: unknown;
}

interface FailureEnvelope {
  success: false;
  error: { code: string; message: string; violations?: unknown };
}

function isSuccess(value: unknown): value is SuccessEnvelope {
  return typeof value === 'object' && value !== null && (value as { success?: unknown }).success === true;
}

function isFailure(value: unknown): value is FailureEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    (value as { success?: unknown }).success === false &&
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}
