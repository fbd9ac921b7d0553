// @simplewebauthn/server (with its ASN.1 and X.509 libraries, ~20 MB resident) loads with the first passkey
// ceremony, not at start: most services see passkeys rarely, and some never.
type WebAuthn = typeof import('@simplewebauthn/server');

let loading: Promise<WebAuthn> | undefined;

export function webAuthn(): Promise<WebAuthn> {
  loading ??= import('@simplewebauthn/server');
  return loading;
}
