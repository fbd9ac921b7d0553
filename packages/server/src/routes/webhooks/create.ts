import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/webhooks/webhook-events.ts';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { ENDPOINTS_PER_USER_MAX } from '../../services/webhooks/webhooks.ts';
import { endpointInput } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/webhooks',
  auth: 'user',
  role: 'admin',
  stepUp: 'withFactor',
  summary: 'Add a webhook endpoint',
  description:
    'Events are POSTed to `url` as `{id, type, createdAt, data}` with `Agent-Wallet-Signature: t=<unix seconds>,' +
    'v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The `secret` (`whsec_…`) appears in this answer only. ' +
    'Any 2xx within 10 s is delivered; anything else is retried with exponential backoff for at least 24 h. A ' +
    `user has at most ${ENDPOINTS_PER_USER_MAX} endpoints (past that, 400).`,
  tags: ['webhooks'],
  body: z.strictObject(endpointInput),
  response: z.object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)).nullable(),
    description: z.string().nullable(),
    secret: z.string(),
    createdAt: z.string(),
  }),
  successStatus: 201,
  handler: async ({ request, body, services }) => ({
    data: await services.webhooks.create(currentUser(request).tenantId, body),
  }),
});
