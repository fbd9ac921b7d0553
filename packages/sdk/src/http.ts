// The transport both clients share: one JSON request over `fetch`, the envelope unwrapped, failures turned
// into typed errors, a per-attempt timeout, and retries (2 by default) that never risk doing a write twice.
import { AgentWalletError, errorFromResponse, NetworkError, RateLimitError, ServerError } from './errors.ts';

/** The subset of `RequestInit` the SDK sends: `globalThis.fetch` satisfies `FetchLike`. */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** The subset of `Response` the SDK reads. */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** Options shared by AgentWalletClient and ManagementClient. */
export interface ClientOptions {
  /** Where the service runs, e.g. `http://127.0.0.1:8787` (a path prefix is kept). */
  baseUrl: string;
  /** Per attempt, including reading the body. Default 30 000 ms. A timeout throws NetworkError (TIMEOUT). */
  timeoutMs?: number;
  /**
   * Retries after the first attempt; default 2 (0 turns retries off). Retried: 429 (after exactly `Retry-After`
   * seconds: the server did not execute the request), and — for reads and for writes that carry an
   * idempotency key only — network errors, timeouts and 5xx (except TX_EXECUTION_FAILED, a final outcome),
   * with exponential backoff and jitter (at least the `Retry-After` of a 503). Other 4xx are never retried.
   */
  maxRetries?: number;
  /** First backoff delay for 5xx and network errors, doubled per retry, with jitter. Default 500 ms. */
  retryBaseDelayMs?: number;
  /**
   * Longest wait before a retry. Backoff delays are capped at it; a 429 whose `Retry-After` is longer is not
   * retried (it would be refused again) and throws its RateLimitError at once. Default 60 000 ms.
   */
  retryDelayMaxMs?: number;
  /** A fetch implementation; default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** How to wait between retries; default a `setTimeout` promise. Inject one in tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** Like stripe-node and openai-node: two retries, safe because every money call carries an idempotency key. */
const MAX_RETRIES_DEFAULT = 2;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  /** Starts with `/`; path segments already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** JSON body; undefined sends none. */
  body?: unknown;
  /** Bearer credential: a JWT or an API key. */
  credential: string | undefined;
  idempotencyKey?: string | undefined;
  /**
   * Whether a 5xx or a network failure may be retried: true for reads and for writes that carry an
   * idempotency key (the server replays the first result), false for every other write.
   */
  retrySafe: boolean;
  /** Per call: abort it (no retry follows an abort). */
  signal?: AbortSignal | undefined;
  /** Per call: the timeout of each attempt, instead of the client's. */
  timeoutMs?: number | undefined;
}

/** Options of a single call. */
export interface RequestOptions {
  /** Aborts the call; it throws NetworkError with code ABORTED and is not retried. */
  signal?: AbortSignal;
  /** This call's per-attempt timeout in milliseconds, instead of the client's `timeoutMs`. */
  timeoutMs?: number;
}

const TIMEOUT_MS_DEFAULT = 30_000;
const RETRY_BASE_DELAY_MS_DEFAULT = 500;
const RETRY_DELAY_MAX_MS_DEFAULT = 60_000;
const BODY_SNIPPET_CHARS = 200;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class HttpTransport {
  readonly baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseDelayMs: number;
  readonly #retryDelayMaxMs: number;
  readonly #fetch: FetchLike;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    this.#timeoutMs = nonNegative('timeoutMs', options.timeoutMs, TIMEOUT_MS_DEFAULT);
    if (this.#timeoutMs === 0) throw new TypeError('timeoutMs must be above 0');
    this.#maxRetries = Math.floor(nonNegative('maxRetries', options.maxRetries, MAX_RETRIES_DEFAULT));
    this.#retryBaseDelayMs = nonNegative(
      'retryBaseDelayMs',
      options.retryBaseDelayMs,
      RETRY_BASE_DELAY_MS_DEFAULT,
    );
    this.#retryDelayMaxMs = nonNegative(
      'retryDelayMaxMs',
      options.retryDelayMaxMs,
      RETRY_DELAY_MAX_MS_DEFAULT,
    );
    if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
      throw new TypeError('no fetch implementation: pass the `fetch` option (Node >= 18 has one built in)');
    }
    // Called unbound: some runtimes refuse `fetch` called as a method of another object.
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.#sleep = options.sleep ?? defaultSleep;
  }

  /** Sends the request, retrying as the options allow; resolves with the envelope's `data`. */
  async request<T>(request: HttpRequest): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.#attempt(request)) as T;
      } catch (error) {
        const aborted = request.signal?.aborted === true;
        const delayMs =
          attempt < this.#maxRetries && !aborted ? this.#retryDelay(error, request, attempt) : undefined;
        if (delayMs === undefined) throw error;
        await this.#sleep(delayMs);
      }
    }
  }

  /** Milliseconds to wait before retrying after `error`, or undefined when it must not be retried. */
  #retryDelay(error: unknown, request: HttpRequest, attempt: number): number | undefined {
    if (error instanceof RateLimitError) {
      // Refused before execution (contract section 4): safe to repeat for any request, after Retry-After.
      const delayMs = error.retryAfter * 1000;
      return delayMs <= this.#retryDelayMaxMs ? delayMs : undefined;
    }
    if (!request.retrySafe || !(error instanceof AgentWalletError)) return undefined;
    const transient =
      error instanceof NetworkError ||
      (error.status !== undefined &&
        error.status >= 500 &&
        error.code !== 'TX_EXECUTION_FAILED' &&
        error.code !== 'X402_UPSTREAM_ERROR' &&
        error.code !== 'PAYMENT_UPSTREAM_ERROR');
    if (!transient) return undefined;
    const exponential = this.#retryBaseDelayMs * 2 ** attempt;
    const jittered = exponential / 2 + Math.random() * (exponential / 2);
    // A 503 may say how long the outage lasts (Retry-After): no point in coming back sooner.
    const asked =
      error instanceof ServerError && error.retryAfter !== undefined ? error.retryAfter * 1000 : 0;
    return Math.min(this.#retryDelayMaxMs, Math.max(asked, Math.round(jittered)));
  }

  async #attempt(request: HttpRequest): Promise<unknown> {
    const url = this.baseUrl + request.path + queryString(request.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.credential !== undefined && request.credential !== '') {
      headers.authorization = `Bearer ${request.credential}`;
    }
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    const init: FetchInit = { method: request.method, headers };
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(request.body);
    }

    const controller = new AbortController();
    init.signal = controller.signal;
    let timedOut = false;
    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const abort = () => controller.abort();
    if (request.signal?.aborted === true) controller.abort();
    request.signal?.addEventListener('abort', abort, { once: true });
    let response: FetchResponse;
    let text: string;
    try {
      response = await this.#fetch(url, init);
      text = await response.text();
    } catch (cause) {
      const what = `${request.method} ${request.path}`;
      const abortedByCaller = !timedOut && request.signal?.aborted === true;
      throw new NetworkError({
        code: timedOut ? 'TIMEOUT' : abortedByCaller ? 'ABORTED' : 'NETWORK_ERROR',
        message: timedOut
          ? `${what} timed out after ${timeoutMs} ms`
          : abortedByCaller
            ? `${what} was aborted by the caller`
            : `${what} failed: ${describeCause(cause)}`,
        timedOut,
        idempotencyKey: request.idempotencyKey,
        cause,
      });
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', abort);
    }
    return unwrapEnvelope(response, text, request.idempotencyKey);
  }
}

/** The envelope's `data` of a 2xx, or the typed error of anything else. */
function unwrapEnvelope(response: FetchResponse, text: string, idempotencyKey: string | undefined): unknown {
  const body = parseJson(text);
  const isSuccess = response.status >= 200 && response.status < 300;
  if (isSuccess && isObject(body) && body.success === true && 'data' in body) return body.data;
  const error = isObject(body) && body.success === false ? errorObjectOf(body.error) : undefined;
  const fallbackMessage = isSuccess
    ? `expected a JSON success envelope, got HTTP ${response.status}: ${snippet(text)}`
    : `HTTP ${response.status} without an error envelope: ${snippet(text)}`;
  if (isSuccess) {
    throw new AgentWalletError({
      code: 'UNEXPECTED_RESPONSE',
      message: fallbackMessage,
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? undefined,
      idempotencyKey,
    });
  }
  throw errorFromResponse({
    status: response.status,
    headers: response.headers,
    error,
    data: isObject(body) && error !== undefined ? body.data : undefined,
    fallbackMessage,
    idempotencyKey,
  });
}

function errorObjectOf(value: unknown): { code: string; message: string } | undefined {
  if (!isObject(value) || typeof value.code !== 'string') return undefined;
  return {
    ...value,
    code: value.code,
    message: typeof value.message === 'string' ? value.message : value.code,
  };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length <= BODY_SNIPPET_CHARS ? flat : `${flat.slice(0, BODY_SNIPPET_CHARS)}…`;
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // Node's fetch says "fetch failed" and keeps the reason (ECONNREFUSED, ...) in `cause`.
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${cause.message}${inner}`;
}

function queryString(query: HttpRequest['query']): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function normaliseBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl === '') {
    throw new TypeError('baseUrl is required, e.g. "http://127.0.0.1:8787"');
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a valid URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL, not ${JSON.stringify(baseUrl)}`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`${name} must be a non-negative number, not ${String(value)}`);
  }
  return value;
}

/** Encodes one path segment (an id) so it cannot change the path. */
export function segment(value: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError('an id must be a non-empty string');
  return encodeURIComponent(value);
}

/** A fresh idempotency key: a UUID v4 from `crypto.randomUUID`, or getRandomValues where that is missing. */
export function newIdempotencyKey(): string {
  const cryptoApi = (
    globalThis as {
      crypto?: { randomUUID?: () => string; getRandomValues?: (bytes: Uint8Array) => Uint8Array };
    }
  ).crypto;
  if (typeof cryptoApi?.randomUUID === 'function') return cryptoApi.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof cryptoApi?.getRandomValues === 'function') cryptoApi.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
