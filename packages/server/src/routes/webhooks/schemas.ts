import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/webhooks/webhook-events.ts';
import { WEBHOOK_URL_LENGTH_MAX } from '../../domain/webhooks/webhook-url.ts';
import { humanText, idSchema } from '../../http/schemas.ts';

/** What the owner calls an endpoint, shown in the dashboard. */
const WEBHOOK_DESCRIPTION_LENGTH_MAX = 200;

export const endpointParams = z.strictObject({ id: idSchema });
export const deliveryParams = z.strictObject({ id: idSchema, deliveryId: idSchema });

/**
 * The URL's shape, checked before it is parsed: the WHATWG parser would silently drop surrounding spaces and
 * tabs or newlines inside, and the URL is stored as sent. http:// passes here; checkWebhookUrl takes it only with
 * WEBHOOK_ALLOW_PRIVATE=true (the document shows https:// and says so).
 */
const URL_AFTER_SCHEME = '://[^\\s/?#@\\u0000]+(?:[/?#][^\\s\\u0000]*)?$';
const URL_SHAPE = new RegExp(`^https?${URL_AFTER_SCHEME}`);

const eventsSchema = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length)
  .transform((events) => [...new Set(events)])
  .describe('Event types to receive; omitted or null = every type.');

export const endpointInput = {
  url: z
    .string()
    .min(1)
    .max(WEBHOOK_URL_LENGTH_MAX)
    .regex(URL_SHAPE, { message: 'must be an https:// URL without whitespace or credentials' })
    .meta({
      format: 'uri',
      // https, a host without credentials (no @ before the path), then anything but whitespace and NUL.
      pattern: `^https${URL_AFTER_SCHEME}`,
      description:
        'https:// URL that receives POSTed events: no credentials in it, and its host must not be or resolve to a ' +
        'loopback, private or link-local address (else 400); a server with WEBHOOK_ALLOW_PRIVATE=true also takes ' +
        'those, and http://.',
    }),
  events: eventsSchema.nullable().optional(),
  description: humanText(WEBHOOK_DESCRIPTION_LENGTH_MAX).nullable().optional(),
};

export const endpointView = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)).nullable(),
  description: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const deliveryView = z.object({
  id: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable(),
  nextAttemptAt: z.string().nullable(),
  lastError: z
    .string()
    .nullable()
    .describe('Why the last attempt failed: a network error or a short excerpt.'),
  createdAt: z.string(),
});
