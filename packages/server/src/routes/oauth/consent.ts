import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { baseUrlFor, hostRulesOf } from '../../http/origin.ts';
import { defineRoute } from '../../http/route.ts';
import { idSchema } from '../../http/schemas.ts';
import { scopesSchema } from '../keys/schemas.ts';
import { authorizationRequest, consentAnswer } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/oauth/consent',
  auth: 'user',
  role: 'admin',
  // Allowing hands a client the wallet's money as a key would: always. Denying gives nothing away.
  stepUp: 'always',
  stepUpWhen: async ({ body }) => (body.decision === 'allow' ? 'always' : null),
  summary: 'Allow or deny an OAuth client the use of an agent wallet',
  description:
    'The owner’s answer on the consent page. Allow: a single-use code (10 minutes) bound to the client, the ' +
    'redirect URI, the PKCE challenge and the resource, for the chosen agent wallet and scopes; its exchange ' +
    'creates a connection listed with the wallet’s keys (type oauth). Deny: the client gets error=access_denied. ' +
    'Either way the answer is where to send the browser (redirectTo, with state and iss). Step-up: always to allow.',
  tags: ['oauth'],
  body: authorizationRequest.extend({
    decision: z.enum(['allow', 'deny']),
    walletId: idSchema.optional().describe('the agent wallet to allow (required to allow)'),
    scopes: scopesSchema.optional().describe('the scopes allowed; default: those asked'),
  }),
  response: consentAnswer,
  handler: async ({ request, body, services }) => {
    const base = baseUrlFor(request, hostRulesOf(services.config));
    const user = currentUser(request);
    const answer = await services.oauth.consent({ tenantId: user.tenantId, userId: user.userId }, body, {
      mcpUrl: `${base}/mcp`,
      issuer: base,
    });
    return { data: answer, audit: body.walletId === undefined ? {} : { walletId: body.walletId } };
  },
});
