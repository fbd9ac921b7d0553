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

const STATUS_BY_CODE: Record<ErrorCode, number> = {
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
