import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { labelSchema, walletIdParams } from '../../http/schemas.ts';
import { KEYS_PER_WALLET_MAX } from '../../services/keys/keys.ts';
import { createdKeyView, scopesSchema } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets/:walletId/keys',
  auth: 'user',
  role: 'admin',
  stepUp: 'always',
  summary: 'Create an API key for an agent wallet',
  description:
    'The key (svc_live_ + 43 random base62 characters) is in this response and nowhere else, ever: only its ' +
    'SHA-256 hash is stored. It acts on this wallet only, within its scopes. A wallet has at most ' +
    `${KEYS_PER_WALLET_MAX} usable keys (past that, 400).`,
  tags: ['keys'],
  params: walletIdParams,
  body: z.strictObject({
    label: labelSchema,
    scopes: scopesSchema.optional(),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('ISO-8601 with an offset, in the future (else 400); the key is refused from then on'),
  }),
  response: createdKeyView,
  successStatus: 201,
  handler: async ({ request, params, body, services }) => {
    const user = currentUser(request);
    const created = await services.keys.create(user.tenantId, params.walletId, {
      label: body.label,
      scopes: body.scopes ?? ['read', 'write'],
      expiresAtMs: body.expiresAt === undefined ? null : Date.parse(body.expiresAt),
      createdBy: user.userId,
    });
    return { data: created };
  },
});
