import { z } from 'zod';

const text = (max: number) => z.string().min(1).max(max);

/** The authorization request's query parameters (contract section 12), as the consent page passes them on. */
export const authorizationRequest = z.strictObject({
  clientId: text(2_048).describe('client_id: a registered id or the https URL of a client metadata document'),
  redirectUri: text(2_048),
  responseType: text(32).describe('must be "code"'),
  codeChallenge: text(128).describe('PKCE S256 challenge (43 base64url characters)'),
  codeChallengeMethod: text(16).describe('must be "S256"'),
  resource: text(2_048).describe("RFC 8707: this service's MCP endpoint, <base>/mcp"),
  scope: z.string().max(64).optional().describe('space-separated: read, write (none asked: both)'),
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
