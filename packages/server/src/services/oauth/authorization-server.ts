// OAuth 2.1 for agent hosts (contract section 12): the service is its own authorization server. Assembled here
// from its parts: the clients (clients.ts: dynamic registration, client ID metadata documents), the owner's
// consent (consent.ts: which mints a single-use code), the grants (grants.ts: the code's exchange with PKCE and
// the resource, rotating refresh tokens, revocation) and the housekeeping (housekeeping.ts). A connection is a
// key row of the wallet (keys/rows.ts insertConnection), so an access token is exactly as strong as an API key
// with those scopes.
import type { ServiceContext } from '../context.ts';
import type { KeyService } from '../keys/keys.ts';
import { createClients } from './clients.ts';
import { createConsent } from './consent.ts';
import { createGrants } from './grants.ts';

export { type ClientInfo, OAUTH_CLIENTS_MAX } from './clients.ts';
export type { AuthorizationRequest } from './consent.ts';
export type { TokenAnswer } from './grants.ts';
export { purgeEndedOAuth } from './housekeeping.ts';
export { OAuthError } from './refusals.ts';

export function createOAuthService(
  ctx: ServiceContext,
  keys: KeyService,
  options: { allowPrivate: boolean },
) {
  const { register, resolveClient } = createClients(ctx, options);
  const { preview, consent, deny } = createConsent(ctx, resolveClient);
  const { token, revoke } = createGrants(ctx, keys);
  return { register, preview, consent, deny, token, revoke, resolveClient };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
