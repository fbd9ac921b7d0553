// How the authorization server says no. The protocol endpoints (register, token, revoke) answer an RFC 6749
// section 5.2 error, `{error, error_description}`; the owner's side (consent) answers the usual envelope.
import { AppError } from '../../errors.ts';

/** An RFC 6749 section 5.2 error: the protocol endpoints answer `{error, error_description}`, not the envelope. */
export class OAuthError extends Error {
  readonly error: string;
  readonly description: string;
  readonly status: number;
  constructor(error: string, description: string, status = 400) {
    super(description);
    this.error = error;
    this.description = description;
    this.status = status;
  }
}

/** An authorization request the owner is not even asked about. */
export const consentRefused = (message: string) => new AppError('OAUTH_INVALID_REQUEST', message);

export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

export function required(params: Record<string, string>, name: string): string {
  const value = params[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}
