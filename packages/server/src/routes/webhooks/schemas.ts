import { z } from 'zod';
import { WEBHOOK_URL_LENGTH_MAX } from '../../domain/webhook-url.ts';
import { idSchema } from '../../http/schemas.ts';
import { EVENT_TYPES } from '../../services/webhook-events.ts';

export const endpointParams = z.strictObject({ id: idSchema });
export const deliveryParams = z.strictObject({ id: idSchema, deliveryId: idSchema });

const eventsSchema = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length)
  .transform((events) => [...new Set(events)])
  .describe('Event types to receive; omitted or null = every type.');

export const endpointInput = {
  url: z.string().min(1).max(WEBHOOK_URL_LENGTH_MAX).describe('https:// URL that receives POSTed events.'),
  events: eventsSchema.nullable().optional(),
  description: z.string().max(200).nullable().optional(),
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
