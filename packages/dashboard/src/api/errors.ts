// Failures as words: every contract error code gets a sentence a person can act on; the server's own message
// (which names the bad field or the reason) is kept where it adds something. The SDK's typed errors become
// ApiError here (toApiError), so every view shows failures the same way.
import { isAgentWalletError, type PolicyViolation, RateLimitError } from '@agent-wallet/sdk';

type Violation = PolicyViolation;

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  /** The envelope's error.message, as the server wrote it. */
  readonly serverMessage: string;
  /** Seconds to wait, for a 429. */
  readonly retryAfter: number | undefined;
  readonly violations: Violation[] | undefined;
  /** The error's other fields (STEP_UP_REQUIRED's methods, MFA_REQUIRED's mfaToken and methods); `{}` when none. */
  readonly details: Record<string, unknown>;

  constructor(
    code: string,
    status: number,
    serverMessage: string,
    extra: { retryAfter?: number; violations?: Violation[]; details?: Record<string, unknown> } = {},
  ) {
    super(describeError(code, status, serverMessage, extra.retryAfter));
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.serverMessage = serverMessage;
    this.retryAfter = extra.retryAfter;
    this.violations = extra.violations;
    this.details = extra.details ?? {};
  }

  /** Worth retrying with the same Idempotency-Key: the outcome is unknown or was never decided. */
  get retryable(): boolean {
    return this.code === 'NETWORK_ERROR' || this.code === 'RATE_LIMITED' || this.status >= 500;
  }
}

/** Any failure (an SDK error, anything else thrown) as an ApiError. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (!isAgentWalletError(error)) return new ApiError('INTERNAL_ERROR', 0, '');
  if (error instanceof RateLimitError) {
    return new ApiError('RATE_LIMITED', 429, error.message, { retryAfter: error.retryAfter });
  }
  const code = sdkCode(error.code, error.status);
  const violations = Array.isArray(error.details.violations)
    ? (error.details.violations as Violation[])
    : undefined;
  // The SDK's own fallback text ("HTTP 502 without an error envelope: …") is not for people.
  const message = code === error.code ? error.message : '';
  return new ApiError(code, error.status ?? 0, message, {
    ...(violations ? { violations } : {}),
    details: error.details,
  });
}

/** The SDK's own codes in the dashboard's terms. */
function sdkCode(code: string, status: number | undefined): string {
  if (code === 'TIMEOUT' || code === 'ABORTED') return 'NETWORK_ERROR';
  if (code === 'UNEXPECTED_RESPONSE') {
    return status !== undefined && status >= 500 && status !== 501 ? 'SERVICE_UNAVAILABLE' : 'BAD_RESPONSE';
  }
  return code;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export function rateLimitText(seconds: number, retrying: boolean): string {
  return retrying
    ? `Too many requests — retrying in ${seconds} s`
    : `Too many requests — try again in ${seconds} s`;
}

export function describeError(code: string, status: number, message: string, retryAfter?: number): string {
  const detail = sentence(message);
  switch (code) {
    case 'VALIDATION_ERROR':
      return detail === '' ? 'Some of the values are not valid.' : `Not accepted: ${detail}`;
    case 'UNAUTHORIZED':
      return 'Your session has ended. Please log in again.';
    case 'INVALID_CREDENTIALS':
      return 'Wrong email or password.';
    case 'EMAIL_TAKEN':
      return 'An account with this email already exists. Log in instead.';
    case 'NOT_FOUND':
      return 'Not found: it may have been deleted, or it belongs to another account.';
    case 'INVALID_STATE':
      return `That cannot be done now. ${detail}`.trim();
    case 'IDEMPOTENCY_CONFLICT':
      return 'This request was already sent with different values. Reload the page and try again.';
    case 'INSUFFICIENT_BALANCE':
      return `Not enough available balance. ${detail}`.trim();
    case 'POLICY_DENIED':
      return `Blocked by a policy. ${detail}`.trim();
    case 'STEP_UP_REQUIRED':
      return 'This needs you to confirm it is you first. Try again and confirm when asked.';
    case 'MFA_REQUIRED':
      return 'This account has two-step verification: enter a code or use a passkey.';
    case 'FORBIDDEN_ROLE':
      return 'Your role in this organization does not allow this. Ask an owner if you need it.';
    case 'MFA_ENROLLMENT_REQUIRED':
      return 'Your organization requires a second factor: add an authenticator app or a passkey on the Security page first.';
    case 'WITHDRAWAL_ADDRESS_NOT_ALLOWED':
      return `This address cannot receive withdrawals now. ${detail}`.trim();
    case 'OAUTH_INVALID_REQUEST': {
      // The app sent a request this service will not honour: why (the server names the parameter, kept as it is
      // written), and that going back to the app is the way on.
      const reason = message.trim().replace(/[.!?]+$/, '');
      return `This request to connect an app is not valid${reason === '' ? '' : `: ${reason}`}. Start again from the app.`;
    }
    case 'WALLET_FROZEN':
      return 'This wallet is frozen.';
    case 'INSUFFICIENT_SCOPE':
      return `The key lacks the scope for this. ${detail}`.trim();
    case 'PAYLOAD_TOO_LARGE':
      return 'That is too much data to send at once.';
    case 'RATE_LIMITED':
      return rateLimitText(retryAfter ?? 1, false);
    case 'TX_EXECUTION_FAILED':
      return 'The payment could not be settled; the funds were returned. Please try again.';
    case 'SERVICE_UNAVAILABLE':
      return 'The service is temporarily unavailable. Please try again in a moment.';
    case 'INTERNAL_ERROR':
      return 'Something went wrong on the server. Please try again.';
    case 'NETWORK_ERROR':
      return 'Cannot reach the server. Check your connection and try again.';
    case 'BAD_RESPONSE':
      return `The server sent an unexpected answer (HTTP ${status}). Please try again.`;
    default:
      return detail === '' ? `Request failed (HTTP ${status}).` : detail;
  }
}
