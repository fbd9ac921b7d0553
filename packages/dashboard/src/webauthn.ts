// The browser's side of passkeys (WebAuthn) through @simplewebauthn/browser: create one (registration), use one
// (a login's second step, a step-up). A failure of the browser's ceremony becomes an ApiError, so forms show it
// like any other failure. The relying party is the page's host: passkeys work on a domain name or localhost,
// never on an IP address.
import {
  type AuthenticationResponseJSON,
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import { ApiError } from './api/errors.ts';

/** The browser's refusal in the dashboard's words (pure: unit-tested). */
export function passkeyFailure(error: unknown, supported: boolean): ApiError {
  if (!supported) {
    return new ApiError(
      'PASSKEY_UNSUPPORTED',
      0,
      'This browser cannot use passkeys here (they need a recent browser and a page on a domain name or localhost)',
    );
  }
  const name = error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') {
    return new ApiError(
      'PASSKEY_CANCELLED',
      0,
      'No passkey was used: it was cancelled or timed out. Try again',
    );
  }
  if (name === 'InvalidStateError') {
    return new ApiError('PASSKEY_EXISTS', 0, 'This authenticator already holds a passkey for your account');
  }
  if (name === 'SecurityError') {
    return new ApiError(
      'PASSKEY_UNSUPPORTED',
      0,
      'Passkeys do not work at this address: open the dashboard at its domain name (or localhost)',
    );
  }
  return new ApiError('PASSKEY_FAILED', 0, 'The passkey could not be used. Try again');
}

export async function createPasskey(
  optionsJSON: PublicKeyCredentialCreationOptionsJSON,
): Promise<RegistrationResponseJSON> {
  try {
    return await startRegistration({ optionsJSON });
  } catch (error) {
    throw passkeyFailure(error, browserSupportsWebAuthn());
  }
}

export async function answerWithPasskey(
  optionsJSON: PublicKeyCredentialRequestOptionsJSON,
): Promise<AuthenticationResponseJSON> {
  try {
    return await startAuthentication({ optionsJSON });
  } catch (error) {
    throw passkeyFailure(error, browserSupportsWebAuthn());
  }
}
