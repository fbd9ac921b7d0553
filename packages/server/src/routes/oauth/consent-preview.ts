import { baseUrlFor, hostRulesOf } from '../../http/origin.ts';
import { defineRoute } from '../../http/route.ts';
import { authorizationRequest, consentPreviewView } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/oauth/consent/preview',
  auth: 'user',
  // Every member may see who asks: one below admin can then deny knowingly (consent/deny), not allow.
  role: 'viewer',
  audited: false,
  summary: 'Check an OAuth authorization request before asking the owner',
  description:
    'What the consent page (/oauth/authorize) shows: the client (a registered one, or its metadata document ' +
    'fetched now under the webhook address rules), its redirect host and the scopes asked. A request that is ' +
    'wrong in any way (unknown client, unregistered redirect URI, no S256 challenge, another resource) is 400 ' +
    'OAUTH_INVALID_REQUEST, and the page redirects nowhere.',
  tags: ['oauth'],
  body: authorizationRequest,
  response: consentPreviewView,
  handler: async ({ request, body, services }) => ({
    data: await services.oauth.preview(body, `${baseUrlFor(request, hostRulesOf(services.config))}/mcp`),
  }),
});
