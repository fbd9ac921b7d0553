// One error type carries every contract code; the HTTP layer turns it into the failure envelope.
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'INVALID_CREDENTIALS'
  | 'MFA_REQUIRED'
  | 'STEP_UP_REQUIRED'
  | 'MCP_AUTH_MISSING'
  | 'MCP_AUTH_INVALID'
  | 'INSUFFICIENT_SCOPE'
  | 'FORBIDDEN_ROLE'
  | 'MFA_ENROLLMENT_REQUIRED'
  | 'WALLET_FROZEN'
  | 'ORIGIN_NOT_ALLOWED'
  | 'NOT_FOUND'
  | 'UNKNOWN_TOOL'
  | 'METHOD_NOT_ALLOWED'
  | 'EMAIL_TAKEN'
  | 'IDEMPOTENCY_CONFLICT'
  | 'INVALID_STATE'
  | 'OAUTH_INVALID_REQUEST'
  | 'PAYLOAD_TOO_LARGE'
  | 'POLICY_DENIED'
  | 'INSUFFICIENT_BALANCE'
  | 'WITHDRAWAL_ADDRESS_NOT_ALLOWED'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'TX_EXECUTION_FAILED'
  | 'SERVICE_UNAVAILABLE'
  | 'X402_PRICE_TOO_HIGH'
  | 'X402_UNSUPPORTED'
  | 'X402_UPSTREAM_ERROR'
  | 'PAYMENT_PRICE_TOO_HIGH'
  | 'PAYMENT_UNSUPPORTED'
  | 'PAYMENT_UPSTREAM_ERROR';

/** The HTTP status of each code (contract section 2). */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  MFA_REQUIRED: 401,
  STEP_UP_REQUIRED: 403,
  MCP_AUTH_MISSING: 401,
  MCP_AUTH_INVALID: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN_ROLE: 403,
  MFA_ENROLLMENT_REQUIRED: 403,
  WALLET_FROZEN: 403,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  UNKNOWN_TOOL: 404,
  METHOD_NOT_ALLOWED: 405,
  EMAIL_TAKEN: 409,
  IDEMPOTENCY_CONFLICT: 409,
  INVALID_STATE: 409,
  OAUTH_INVALID_REQUEST: 400,
  PAYLOAD_TOO_LARGE: 413,
  POLICY_DENIED: 422,
  INSUFFICIENT_BALANCE: 422,
  WITHDRAWAL_ADDRESS_NOT_ALLOWED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  TX_EXECUTION_FAILED: 502,
  SERVICE_UNAVAILABLE: 503,
  X402_PRICE_TOO_HIGH: 422,
  X402_UNSUPPORTED: 422,
  X402_UPSTREAM_ERROR: 502,
  PAYMENT_PRICE_TOO_HIGH: 422,
  PAYMENT_UNSUPPORTED: 422,
  PAYMENT_UPSTREAM_ERROR: 502,
};

/** When each code is answered, in the reference's words (docs/reference/errors.md is generated from this). */
export const ERROR_CODE_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'malformed JSON, a missing, extra or ill-typed field, a bad amount or address',
  UNAUTHORIZED: 'REST: a missing, malformed, expired, tampered or logged-out session token',
  INVALID_CREDENTIALS: 'login with a wrong email or password (the same answer for both)',
  MFA_REQUIRED: 'the password was right and the account has a second factor: finish at /auth/login/mfa',
  STEP_UP_REQUIRED:
    'a sensitive operation with a session whose proof of presence is older than STEP_UP_MAX_AGE_SECONDS',
  MCP_AUTH_MISSING: 'a tool call without `Authorization: Bearer svc_live_…`',
  MCP_AUTH_INVALID: 'an unknown, revoked or expired API key',
  INSUFFICIENT_SCOPE: 'the key lacks the scope the tool needs (the message names it)',
  FORBIDDEN_ROLE: 'the member’s role may not use this route (the roles table says which may)',
  MFA_ENROLLMENT_REQUIRED: 'the organization requires a second factor and this member has none yet',
  WALLET_FROZEN: 'a write tool on a frozen agent wallet',
  ORIGIN_NOT_ALLOWED: 'a browser request from an origin not in ALLOWED_ORIGINS',
  NOT_FOUND: 'no such resource',
  UNKNOWN_TOOL: 'no such tool (on this rail)',
  METHOD_NOT_ALLOWED: 'the path exists but not with this HTTP method (`Allow` lists the ones it takes)',
  EMAIL_TAKEN: 'signing up with an email that already has an account',
  IDEMPOTENCY_CONFLICT: 'the same idempotency key with other params',
  INVALID_STATE:
    'the resource is not in a state that allows this (approving a transaction that is not pending)',
  OAUTH_INVALID_REQUEST: 'an OAuth consent that does not match its client, redirect URI or request',
  PAYLOAD_TOO_LARGE: 'the body is over the limit',
  POLICY_DENIED:
    'a policy blocks the payment: `error.violations` lists each, `data` the rejected transaction',
  INSUFFICIENT_BALANCE: 'not enough available balance',
  WITHDRAWAL_ADDRESS_NOT_ALLOWED: 'a withdrawal to an address not (yet) usable in the address book',
  RATE_LIMITED: 'a rate limit is exhausted: `Retry-After` says in how many seconds to try again',
  INTERNAL_ERROR: 'a bug: never a stack trace or SQL text in the body',
  TX_EXECUTION_FAILED: 'settlement failed; the funds are returned',
  SERVICE_UNAVAILABLE: 'a backing store is down, the service is draining, or the treasury cannot pay now',
  X402_PRICE_TOO_HIGH: 'the 402 asks more than `maxAmount`; nothing signed',
  X402_UNSUPPORTED:
    'the 402 offers no requirement this service can pay (chain, asset, scheme); nothing signed',
  X402_UPSTREAM_ERROR:
    'the paid resource could not be reached or answered out of protocol; nothing paid, or the payment’s status says what happened',
  PAYMENT_PRICE_TOO_HIGH: 'as X402_PRICE_TOO_HIGH, for `paid_fetch` and `mpp_sign` (any protocol)',
  PAYMENT_UNSUPPORTED: 'as X402_UNSUPPORTED, for `paid_fetch` and `mpp_sign` (any protocol)',
  PAYMENT_UPSTREAM_ERROR: 'as X402_UPSTREAM_ERROR, for `paid_fetch` and `mpp_sign` (any protocol)',
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra fields of the `error` object (e.g. `violations`). */
  readonly details: Record<string, unknown> | undefined;
  /** The envelope's `data`, for failures that still produced a record (a policy denial's transaction). */
  readonly data: Record<string, unknown> | undefined;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    extra: {
      details?: Record<string, unknown>;
      data?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = STATUS_BY_CODE[code];
    this.details = extra.details;
    this.data = extra.data;
    this.headers = extra.headers;
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const invalid = (message: string) => new AppError('VALIDATION_ERROR', message);
export const invalidState = (message: string) => new AppError('INVALID_STATE', message);

/** TigerStyle assertion: a broken invariant is a bug, never a user error; it aborts the operation. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`invariant violated: ${message}`);
}
