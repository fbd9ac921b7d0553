// onRequest: identify the caller, then (rate limiting hooks in here) enforce what the route requires.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services/index.ts';
import { bearerToken, isApiKeyShaped, unauthorized } from './auth.ts';

export function registerAuthHooks(app: FastifyInstance, services: Services) {
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config?.auth ?? 'none';
    if (mode === 'user') await authenticateUser(request, services);
  });
}

async function authenticateUser(request: FastifyRequest, services: Services): Promise<void> {
  const token = bearerToken(request);
  if (token === null) throw unauthorized();
  if (isApiKeyShaped(token))
    throw unauthorized('API keys are for the tool interface; the REST API needs a session token');
  const user = await services.auth.authenticate(token);
  if (user === null) throw unauthorized('the session token is invalid, expired or logged out');
  request.user = user;
}

/** The authenticated user of a `user` route; the hook guarantees it is set. */
export function currentUser(request: FastifyRequest) {
  if (request.user === null) throw unauthorized();
  return request.user;
}
