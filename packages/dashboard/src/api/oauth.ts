// OAuth for agent hosts (contract section 12): the consent page asks the server what a client's authorization
// request means (preview) and sends the owner's decision (consent); the server answers where the browser goes
// next. The SDK has no methods for these routes, so they go through ApiClient.request (the same adapter: rate
// limits, 401, and the step-up an Allow needs, exactly like creating an API key). The types are written here
// until the server's OpenAPI document (and so the SDK's wire types) has them.
import type { Scope } from '@agent-wallet/sdk';
import type { Requester } from './request.ts';

/** The authorization request's query parameters, in camelCase; an absent one is left out. */
export interface AuthorizeRequest {
  clientId?: string;
  redirectUri?: string;
  responseType?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  resource?: string;
  /** Space-separated, as OAuth sends it. */
  scope?: string;
  state?: string;
}

export interface ConsentPreview {
  client: {
    clientId: string;
    name: string;
    /** The host the browser is sent back to: what the owner checks against the app they meant to connect. */
    redirectHost: string;
    /** True when client_id is the https URL of the client's metadata document; false for a registered client. */
    metadataDocument: boolean;
  };
  /** What the client asked for (both when it named none). */
  scopes: Scope[];
  resource: string;
}

export type ConsentDecision = { decision: 'allow'; walletId: string; scopes: Scope[] } | { decision: 'deny' };

export interface ConsentAnswer {
  /** The client's redirect URI with the code (allow) or error=access_denied (deny). */
  redirectTo: string;
}

export function oauthApi(client: Requester) {
  return {
    preview: (request: AuthorizeRequest) =>
      client.request<ConsentPreview>('POST', '/oauth/consent/preview', { body: request }),
    // Deny has a route of its own that any member may use (allowing needs an admin and, with a factor, step-up).
    consent: (request: AuthorizeRequest, decision: ConsentDecision) =>
      decision.decision === 'deny'
        ? client.request<ConsentAnswer>('POST', '/oauth/consent/deny', { body: request })
        : client.request<ConsentAnswer>('POST', '/oauth/consent', { body: { ...request, ...decision } }),
  };
}

export type OAuthApi = ReturnType<typeof oauthApi>;
