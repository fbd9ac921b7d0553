import { z } from 'zod';
import { defineRoute } from '../../http/route.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/health/live',
  auth: 'none',
  summary: 'Liveness',
  description:
    'The process answers: 200 as long as it runs, also while draining or with the database down (restarting it ' +
    'would not help). For a supervisor’s liveness probe; use /health/ready for load balancing.',
  tags: ['system'],
  response: z.object({ status: z.literal('live') }),
  handler: async () => ({ data: { status: 'live' as const } }),
});
