import { baseUrlFor, hostRulesOf } from '../../http/origin.ts';
import { defineRoute } from '../../http/route.ts';
import { authorizationRequest, consentAnswer } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/oauth/consent/deny',
  auth: 'user',
  // Saying no changes nothing and gives nothing: any member may send the app back, as an admin may.
  role: 'viewer',
  summary: 'Deny an OAuth client (any member)',
  description:
    'Sends the client error=access_denied: the answer is where to send the browser (redirectTo, with state and ' +
    'iss). The request is checked as for allowing it, so a wrong one (unknown client, unregistered redirect URI) ' +
    'is 400 OAUTH_INVALID_REQUEST and redirects nowhere. Nothing is stored but the audit line.',
  tags: ['oauth'],
  body: authorizationRequest,
  response: consentAnswer,
  handler: async ({ request, body, services }) => {
    const base = baseUrlFor(request, hostRulesOf(services.config));
    return { data: await services.oauth.deny(body, { mcpUrl: `${base}/mcp`, issuer: base }) };
  },
});
