import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { defineRoute } from '../../http/route.ts';

export default defineRoute({
  method: 'GET',
  url: '/api/v1/health/ready',
  auth: 'none',
  summary: 'Readiness',
  description:
    '200 while this instance should receive traffic; 503 SERVICE_UNAVAILABLE from the moment SIGTERM arrives ' +
    '(the instance keeps serving for SHUTDOWN_DRAIN_MS, then closes) and while the database cannot be reached. ' +
    'Point a load balancer’s health check here (see docs/operators/haproxy.md for HAProxy, nginx and Kubernetes).',
  tags: ['system'],
  response: z.object({ status: z.literal('ready') }),
  handler: async ({ services }) => {
    if (services.lifecycle.draining) {
      throw new AppError('SERVICE_UNAVAILABLE', 'this instance is shutting down', {
        headers: { 'retry-after': '1' },
      });
    }
    const health = await services.health();
    if (health.database === 'down') {
      throw new AppError('SERVICE_UNAVAILABLE', 'the database cannot be reached', {
        headers: { 'retry-after': '1' },
      });
    }
    return { data: { status: 'ready' as const } };
  },
});
