import { z } from 'zod';

const text = (max: number) => z.string().min(1).max(max);

/** The authorization request's query parameters (contract section 12), as the consent page passes them on. */
export const authorizationRequest = z.strictObject({
  clientId: text(2_048).describe('client_id: a registered id or the https URL of a client metadata document'),
  redirectUri: text(2_048),
  // The values the service takes are published as such; the service itself refuses any other with 400
  // OAUTH_INVALID_REQUEST, the code of every malformed authorization request (what the consent page shows).
  responseType: text(32).meta({ enum: ['code'], description: 'response_type: "code" (the only one)' }),
  codeChallenge: text(128).meta({
    pattern: '^[A-Za-z0-9_-]{43}$',
    description: 'PKCE S256 challenge (43 base64url characters)',
  }),
  codeChallengeMethod: text(16).meta({
    enum: ['S256'],
    description: 'code_challenge_method: "S256" (the only one)',
  }),
  resource: text(2_048).describe("RFC 8707: this service's MCP endpoint, <base>/mcp"),
  scope: z.string().max(64).optional().meta({
    pattern: '^\\s*(read|write|read\\s+write|write\\s+read)?\\s*$',
    description: 'space-separated: read, write, each at most once (none asked: both)',
  }),
  state: z.string().max(1_024).optional(),
});

export const consentPreviewView = z.object({
  client: z.object({
    clientId: z.string(),
    name: z.string().describe('what the client calls itself: shown to the owner with its redirect host'),
    redirectHost: z.string(),
    metadataDocument: z.boolean().describe('the client_id is the URL of its metadata document'),
  }),
  scopes: z.array(z.enum(['read', 'write'])),
  resource: z.string(),
});

/** Where to send the browser next: the client's redirect URI with the code or error=access_denied, state and iss. */
export const consentAnswer = z.object({ redirectTo: z.string() });
