// Typed errors: one class per family of contract error codes (contract section 2), all extending
// AgentWalletError. `errorFromResponse` is the one place an HTTP failure becomes one of them.
import type { PolicyViolation } from './types.ts';

/** Every error code of the contract, plus the SDK's own (`NETWORK_ERROR`, `TIMEOUT`, `ABORTED`, `UNEXPECTED_RESPONSE`). */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'INVALID_CREDENTIALS'
  | 'MCP_AUTH_MISSING'
  | 'MCP_AUTH_INVALID'
  | 'MFA_REQUIRED'
  | 'STEP_UP_REQUIRED'
  | 'INSUFFICIENT_SCOPE'
  | 'FORBIDDEN_ROLE'
  | 'MFA_ENROLLMENT_REQUIRED'
  | 'ORIGIN_NOT_ALLOWED'
  | 'WALLET_FROZEN'
  | 'METHOD_NOT_ALLOWED'
  | 'OAUTH_INVALID_REQUEST'
  | 'WITHDRAWAL_ADDRESS_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'UNKNOWN_TOOL'
  | 'EMAIL_TAKEN'
  | 'IDEMPOTENCY_CONFLICT'
  | 'INVALID_STATE'
  | 'PAYLOAD_TOO_LARGE'
  | 'POLICY_DENIED'
  | 'INSUFFICIENT_BALANCE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'TX_EXECUTION_FAILED'
  | 'SERVICE_UNAVAILABLE'
  | 'X402_PRICE_TOO_HIGH'
  | 'X402_UNSUPPORTED'
  | 'X402_UPSTREAM_ERROR'
  | 'PAYMENT_PRICE_TOO_HIGH'
  | 'PAYMENT_UNSUPPORTED'
  | 'PAYMENT_UPSTREAM_ERROR'
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'UNEXPECTED_RESPONSE';

export interface AgentWalletErrorInit {
  code: string;
  message: string;
  /** HTTP status; undefined when no response arrived (NetworkError). */
  status?: number | undefined;
  details?: Record<string, unknown> | undefined;
  data?: unknown;
  requestId?: string | undefined;
  idempotencyKey?: string | undefined;
  cause?: unknown;
}

const BRAND = Symbol.for('@agent-wallet/sdk.AgentWalletError');

export class AgentWalletError extends Error {
  /** The contract's `error.code` (e.g. `POLICY_DENIED`), or one of the SDK's own codes. */
  readonly code: ErrorCode | (string & {});
  /** The HTTP status, or undefined when no response arrived. */
  readonly status: number | undefined;
  /** The extra fields of the response's `error` object (e.g. `violations`); `{}` when none. */
  readonly details: Record<string, unknown>;
  /** The envelope's `data` on a failure that still produced a record (a policy denial's transaction). */
  readonly data: unknown;
  /** The server's `x-request-id`, for support and log correlation. */
  readonly requestId: string | undefined;
  /**
   * The Idempotency-Key the request carried (also one the SDK generated): retry with the same key to get
   * the first result back instead of paying twice.
   */
  readonly idempotencyKey: string | undefined;

  constructor(init: AgentWalletErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'AgentWalletError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? {};
    this.data = init.data;
    this.requestId = init.requestId;
    this.idempotencyKey = init.idempotencyKey;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** 401: missing, invalid, expired or revoked credentials (JWT or API key), or a wrong email/password. */
export class AuthenticationError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'AuthenticationError';
  }
}

/** 403 INSUFFICIENT_SCOPE: the API key lacks the scope the tool needs (`read` or `write`). */
export class InsufficientScopeError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'InsufficientScopeError';
  }
}

/**
 * 403 FORBIDDEN_ROLE (the member's role is below the route's; `details.requiredRole`), STEP_UP_REQUIRED (a recent
 * password or second factor first: POST /auth/step-up), MFA_ENROLLMENT_REQUIRED (the organization requires a second
 * factor the member has not enrolled): what a person must do or ask for; retrying as is changes nothing.
 */
export class PermissionError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'PermissionError';
  }
}

/** 403 WALLET_FROZEN: the owner froze this agent wallet; write tools are refused until unfrozen. */
export class WalletFrozenError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'WalletFrozenError';
  }
}

/** 404 NOT_FOUND (also another user's resource) or UNKNOWN_TOOL. */
export class NotFoundError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'NotFoundError';
  }
}

/** 409 EMAIL_TAKEN, IDEMPOTENCY_CONFLICT (same key, other params) or INVALID_STATE (e.g. approving twice). */
export class ConflictError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'ConflictError';
  }
}

/** 400 VALIDATION_ERROR (the message names the field) or 413 PAYLOAD_TOO_LARGE. */
export class ValidationError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'ValidationError';
  }
}

/** 422 POLICY_DENIED: every violated policy is listed; the rejected transaction is recorded as `txId`. */
export class PolicyDeniedError extends AgentWalletError {
  readonly violations: PolicyViolation[];
  /** The id of the rejected transaction the denial recorded (visible in the history). */
  readonly txId: string | undefined;

  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'PolicyDeniedError';
    const violations = this.details.violations;
    this.violations = Array.isArray(violations) ? (violations as PolicyViolation[]) : [];
    const data = init.data as { txId?: unknown } | undefined;
    this.txId = typeof data?.txId === 'string' ? data.txId : undefined;
  }
}

/** 422 INSUFFICIENT_BALANCE: not enough available (not held) balance. */
export class InsufficientBalanceError extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'InsufficientBalanceError';
  }
}

/**
 * x402, or any 402 (`PAYMENT_*` codes of paid_fetch and mpp_sign): the price is above `maxAmount` or nothing offered is payable (422, nothing signed), or the paid resource
 * failed (502: `data.payment` says what the payment did). Never retried automatically: a retry with the same
 * idempotency key would only replay it.
 */
export class X402Error extends AgentWalletError {
  constructor(init: AgentWalletErrorInit) {
    super(init);
    this.name = 'X402Error';
  }
}

export interface RateLimitInfo {
  /** `RateLimit-Limit`: requests allowed per window. */
  limit: number | undefined;
  /** `RateLimit-Remaining`. */
  remaining: number | undefined;
  /** `RateLimit-Reset`: seconds until the oldest counted request leaves the window. */
  reset: number | undefined;
}

/** 429 RATE_LIMITED. Waiting `retryAfter` seconds is enough for the same request to be accepted. */
export class RateLimitError extends AgentWalletError {
  /** Seconds to wait before retrying, from the `Retry-After` header (at least 1). */
  readonly retryAfter: number;
  readonly rateLimit: RateLimitInfo;

  constructor(init: AgentWalletErrorInit & { retryAfter: number; rateLimit: RateLimitInfo }) {
    super(init);
    this.name = 'RateLimitError';
    this.retryAfter = init.retryAfter;
    this.rateLimit = init.rateLimit;
  }
}

/**
 * 5xx: INTERNAL_ERROR, TX_EXECUTION_FAILED (settlement failed, funds returned; `data.txId`),
 * SERVICE_UNAVAILABLE, or a 5xx from something in front of the server (code UNEXPECTED_RESPONSE).
 */
export class ServerError extends AgentWalletError {
  /** Seconds the server asked to wait (`Retry-After` on a 503), when it sent one. */
  readonly retryAfter: number | undefined;

  constructor(init: AgentWalletErrorInit & { retryAfter?: number | undefined }) {
    super(init);
    this.name = 'ServerError';
    this.retryAfter = init.retryAfter;
  }
}

/**
 * No HTTP response: the connection failed or was dropped (code NETWORK_ERROR), the request took longer
 * than `timeoutMs` (code TIMEOUT), or the caller's `signal` aborted it (code ABORTED, never retried). `cause` holds the underlying error. A write may or may not have been
 * executed: retry with the same `idempotencyKey` to find out without paying twice.
 */
export class NetworkError extends AgentWalletError {
  readonly timedOut: boolean;

  constructor(init: AgentWalletErrorInit & { timedOut: boolean }) {
    super(init);
    this.name = 'NetworkError';
    this.timedOut = init.timedOut;
  }
}

/** True for every error this SDK throws, also across duplicate copies of the package. */
export function isAgentWalletError(value: unknown): value is AgentWalletError {
  return (
    value instanceof AgentWalletError ||
    (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true)
  );
}

type ErrorClass = new (init: AgentWalletErrorInit) => AgentWalletError;

const CLASS_BY_CODE: Record<string, ErrorClass> = {
  UNAUTHORIZED: AuthenticationError,
  INVALID_CREDENTIALS: AuthenticationError,
  MCP_AUTH_MISSING: AuthenticationError,
  MCP_AUTH_INVALID: AuthenticationError,
  MFA_REQUIRED: AuthenticationError,
  INSUFFICIENT_SCOPE: InsufficientScopeError,
  FORBIDDEN_ROLE: PermissionError,
  STEP_UP_REQUIRED: PermissionError,
  MFA_ENROLLMENT_REQUIRED: PermissionError,
  WALLET_FROZEN: WalletFrozenError,
  NOT_FOUND: NotFoundError,
  UNKNOWN_TOOL: NotFoundError,
  EMAIL_TAKEN: ConflictError,
  IDEMPOTENCY_CONFLICT: ConflictError,
  INVALID_STATE: ConflictError,
  VALIDATION_ERROR: ValidationError,
  PAYLOAD_TOO_LARGE: ValidationError,
  OAUTH_INVALID_REQUEST: ValidationError,
  POLICY_DENIED: PolicyDeniedError,
  INSUFFICIENT_BALANCE: InsufficientBalanceError,
  INTERNAL_ERROR: ServerError,
  TX_EXECUTION_FAILED: ServerError,
  SERVICE_UNAVAILABLE: ServerError,
  X402_PRICE_TOO_HIGH: X402Error,
  X402_UNSUPPORTED: X402Error,
  X402_UPSTREAM_ERROR: X402Error,
  PAYMENT_PRICE_TOO_HIGH: X402Error,
  PAYMENT_UNSUPPORTED: X402Error,
  PAYMENT_UPSTREAM_ERROR: X402Error,
};

/** A code this SDK does not know yet still gets the class of its HTTP status family. */
function classByStatus(status: number): ErrorClass {
  if (status === 400 || status === 413) return ValidationError;
  if (status === 401) return AuthenticationError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status >= 500) return ServerError;
  return AgentWalletError;
}

export interface HeaderReader {
  get(name: string): string | null;
}

export interface FailureInput {
  status: number;
  headers: HeaderReader;
  /** The parsed `error` object of a failure envelope, or undefined when the body was not one. */
  error: { code: string; message: string; [field: string]: unknown } | undefined;
  data: unknown;
  /** Used when the body was not a failure envelope. */
  fallbackMessage: string;
  idempotencyKey: string | undefined;
}

/** The typed error of an HTTP failure response. */
export function errorFromResponse(input: FailureInput): AgentWalletError {
  const requestId = input.headers.get('x-request-id') ?? undefined;
  const base = {
    status: input.status,
    data: input.data,
    requestId,
    idempotencyKey: input.idempotencyKey,
  };
  if (input.status === 429) {
    const code = input.error?.code ?? 'RATE_LIMITED';
    const message = input.error?.message ?? input.fallbackMessage;
    return new RateLimitError({
      ...base,
      code,
      message,
      details: input.error === undefined ? {} : detailsOf(input.error),
      retryAfter: retryAfterSeconds(input.headers),
      rateLimit: {
        limit: integerHeader(input.headers, 'ratelimit-limit'),
        remaining: integerHeader(input.headers, 'ratelimit-remaining'),
        reset: integerHeader(input.headers, 'ratelimit-reset'),
      },
    });
  }
  const init: AgentWalletErrorInit = {
    ...base,
    code: input.error?.code ?? 'UNEXPECTED_RESPONSE',
    message: input.error?.message ?? input.fallbackMessage,
    details: input.error === undefined ? {} : detailsOf(input.error),
  };
  const Class =
    input.error === undefined
      ? input.status >= 500
        ? ServerError
        : AgentWalletError
      : (CLASS_BY_CODE[input.error.code] ?? classByStatus(input.status));
  if (Class === ServerError) {
    const header = input.headers.get('retry-after');
    return new ServerError({
      ...init,
      retryAfter: header === null ? undefined : retryAfterSeconds(input.headers),
    });
  }
  return new Class(init);
}

function detailsOf(error: Record<string, unknown>): Record<string, unknown> {
  const { code: _code, message: _message, ...details } = error;
  return details;
}

/**
 * `Retry-After` as whole seconds: the contract sends an integer ≥ 1; an HTTP date is converted too. Without
 * a usable header, `RateLimit-Reset` is used, and 1 second as the last resort.
 */
export function retryAfterSeconds(headers: HeaderReader, nowMs: number = Date.now()): number {
  const header = headers.get('retry-after')?.trim();
  if (header !== undefined && header !== '') {
    if (/^[0-9]+$/.test(header)) return Math.max(1, Number(header));
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(1, Math.ceil((at - nowMs) / 1000));
  }
  const reset = integerHeader(headers, 'ratelimit-reset');
  return reset === undefined ? 1 : Math.max(1, reset);
}

function integerHeader(headers: HeaderReader, name: string): number | undefined {
  const value = headers.get(name)?.trim();
  return value !== undefined && /^[0-9]+$/.test(value) ? Number(value) : undefined;
}
