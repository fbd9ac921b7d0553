// GET /metrics (Prometheus text format) behind METRICS_TOKEN, and the hook that counts every answered request
// by method, route pattern (never the raw URL: ids would explode the label set) and status.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import type { FaceServices } from '../services/index.ts';
import { bearerMatches } from './auth.ts';

export function registerMetrics(app: FastifyInstance, services: FaceServices): void {
  app.addHook('onResponse', async (request, reply) => {
    services.metrics.httpRequest(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  });
  const token = services.config.metricsToken;
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'none' } }, async (request, reply) => {
    // Off without a token: a 404 envelope (not the dashboard's page), so a scraper sees it is misconfigured.
    if (token === undefined)
      throw new AppError('NOT_FOUND', 'metrics are off: set METRICS_TOKEN to turn them on');
    if (!bearerMatches(request, token)) {
      throw new AppError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    reply.header('content-type', services.metrics.registry.contentType);
    return services.metrics.registry.metrics();
  });
}
