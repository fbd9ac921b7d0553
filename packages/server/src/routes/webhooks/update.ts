import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { endpointInput, endpointParams, endpointView } from './schemas.ts';

export default defineRoute({
  method: 'PATCH',
  url: '/api/v1/webhooks/:id',
  auth: 'user',
  role: 'admin',
  // Where a webhook delivers and what it sends decide whether the humans hear of what happens: changing either is
  // an alarm removed (always); its description alone, with a factor.
  stepUp: 'always',
  stepUpWhen: async ({ body }) =>
    body.url !== undefined || (body.events !== undefined && body.events !== null) ? 'always' : 'withFactor',
  summary: 'Change a webhook endpoint',
  description:
    'Step-up: always to change `url` or `events` (where the alarm goes, what it carries); for `description` ' +
    'alone, when the caller has a second factor.',
  tags: ['webhooks'],
  params: endpointParams,
  body: z.strictObject({ ...endpointInput, url: endpointInput.url.optional() }),
  response: endpointView,
  handler: async ({ request, params, body, services }) => ({
    data: await services.webhooks.update(currentUser(request).tenantId, params.id, body),
  }),
});
