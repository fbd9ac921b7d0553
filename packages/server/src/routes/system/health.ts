import { z } from 'zod';
import { defineRoute } from '../../http/route.ts';
import { VERSION } from '../../version.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/health',
  auth: 'none',
  summary: 'Service health',
  description:
    'Whether the database (and Redis, when configured) answer, and which settlement rail is active.',
  tags: ['system'],
  response: z.object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    database: z.enum(['up', 'down']),
    storage: z.enum(['sqlite', 'postgres']),
    rail: z.string(),
    redis: z.enum(['up', 'down']).optional(),
  }),
  handler: async ({ services }) => {
    const health = await services.health();
    return { data: { ...health, version: VERSION } };
  },
});
