import { z } from 'zod';
import { OVERLAP_SECONDS_DEFAULT, OVERLAP_SECONDS_MAX } from '../../domain/webhooks/webhook-secrets.ts';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { optionalBody } from '../../http/schemas.ts';
import { endpointParams } from './schemas.ts';

// 200, not 201: the endpoint is the same resource with a new secret; nothing is created (contract section 1).
// A key rotation answers 201 because it creates a new key with its own id.
export default defineRoute({
  method: 'POST',
  url: '/api/v1/webhooks/:id/rotate-secret',
  auth: 'user',
  role: 'admin',
  stepUp: 'withFactor',
  summary: "Rotate a webhook endpoint's signing secret",
  description:
    'A new `secret` (`whsec_…`), shown in this answer only. Until `previousSecretExpiresAt` (now + ' +
    `overlapSeconds: default ${OVERLAP_SECONDS_DEFAULT}, 0 = at once, max ${OVERLAP_SECONDS_MAX}) every ` +
    'delivery carries both signatures, `Agent-Wallet-Signature: t=<unix seconds>,v1=<new>,v1=<old>`, so ' +
    'receivers can switch without refusing an event; after it, only the new one. Rotating again during an ' +
    'overlap replaces the previous secret with the current one (the older one stops signing at once).',
  tags: ['webhooks'],
  params: endpointParams,
  body: optionalBody({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(OVERLAP_SECONDS_MAX)
      .optional()
      .describe(
        `How long the replaced secret keeps signing, in seconds (default ${OVERLAP_SECONDS_DEFAULT}).`,
      ),
  }),
  response: z.object({
    secret: z.string().describe('the new signing secret: shown in this response only, never again'),
    previousSecretExpiresAt: z.string().describe('when the replaced secret stops signing deliveries'),
  }),
  handler: async ({ request, params, body, services }) => ({
    data: await services.webhooks.rotateSecret(
      currentUser(request).tenantId,
      params.id,
      body?.overlapSeconds ?? OVERLAP_SECONDS_DEFAULT,
    ),
  }),
});
