// Passkeys (WebAuthn) as a second factor, with @simplewebauthn/server: registration (step-up), removal, and
// authentication for the second step of a login (the challenge rides on the login's mfaToken row) or for a
// step-up (a challenge row of its own, bound to the session). Every challenge is single use and lives 5 minutes;
// the relying party is the host of PUBLIC_URL, or `localhost` with origin `http://localhost:<PORT>`.
import type { ServiceContext } from '../context.ts';
import { createPasskeyAuthentication } from './passkey-authentication.ts';
import { createPasskeyRegistration } from './passkey-registration.ts';
import type { RelyingParty } from './passkey-rows.ts';

export {
  PASSKEY_CHALLENGE_TTL_MS,
  PASSKEYS_PER_USER_MAX,
  type PasskeyView,
  type RelyingParty,
  relyingParty,
} from './passkey-rows.ts';

export function createPasskeyService(ctx: ServiceContext, rp: RelyingParty) {
  return { ...createPasskeyRegistration(ctx, rp), ...createPasskeyAuthentication(ctx, rp) };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
