import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { optionalBody } from '../../http/schemas.ts';
import { GRACE_SECONDS_DEFAULT, GRACE_SECONDS_MAX } from '../../services/keys/keys.ts';
import { createdKeyView, keyParams, keyView } from './schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/agent-wallets/:walletId/keys/:keyId/rotate',
  auth: 'user',
  role: 'admin',
  stepUp: 'always',
  summary: 'Rotate an API key',
  description:
    'A new key (shown once) with the same label and scopes. The old key keeps working until now + ' +
    `gracePeriodSeconds (default ${GRACE_SECONDS_DEFAULT}, 0 = at once, max ${GRACE_SECONDS_MAX}), then is ` +
    'refused: rotation without downtime. A key already rotated, revoked or expired: 409 INVALID_STATE.',
  tags: ['keys'],
  params: keyParams,
  body: optionalBody({ gracePeriodSeconds: z.number().int().min(0).max(GRACE_SECONDS_MAX).optional() }),
  response: createdKeyView.extend({ previousKey: keyView }),
  successStatus: 201,
  handler: async ({ request, params, body, services }) => {
    const grace = body?.gracePeriodSeconds ?? GRACE_SECONDS_DEFAULT;
    const user = currentUser(request);
    const rotated = await services.keys.rotate(
      user.tenantId,
      params.walletId,
      params.keyId,
      grace,
      user.userId,
    );
    return { data: rotated };
  },
});
