import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { noBody } from '../../http/schemas.ts';
import { keyParams, keyView } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets/:walletId/keys/:keyId/revoke',
  auth: 'user',
  role: 'admin',
  summary: 'Revoke an API key',
  description:
    'The key is refused from the next request on, on every instance. Revoking a key in its rotation grace ends ' +
    'the grace now; revoking a revoked key changes nothing.',
  tags: ['keys'],
  params: keyParams,
  body: noBody,
  response: keyView,
  handler: async ({ request, params, services }) => ({
    data: await services.keys.revoke(currentUser(request).tenantId, params.walletId, params.keyId),
  }),
});
