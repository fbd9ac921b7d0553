// onRequest: identify the caller, then (rate limiting hooks in here) enforce what the route requires.
// REST routes take a session JWT; tool routes take an agent's API key; neither accepts the other.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { Services } from '../services/index.ts';
import type { AgentKey } from '../services/keys.ts';
import { toolByName } from '../tools/registry.ts';
import { bearerToken, isApiKeyShaped, unauthorized } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key of a tool call, set by the auth hook. */
    agentKey: AgentKey | null;
    /** The tool a /mcp/v1/tools/<name> request addresses, when it exists: failures carry it too. */
    toolName: string | null;
  }
}

export function registerAuthHooks(app: FastifyInstance, services: Services) {
  app.decorateRequest('user', null);
  app.decorateRequest('agentKey', null);
  app.decorateRequest('toolName', null);
  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config?.auth ?? 'none';
    if (mode === 'user') await authenticateUser(request, services);
    if (mode === 'apiKey') await authenticateAgent(request, services);
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

async function authenticateAgent(request: FastifyRequest, services: Services): Promise<void> {
  const name = (request.params as { name?: unknown }).name;
  if (typeof name === 'string' && toolByName(name) !== undefined) request.toolName = name;
  const token = bearerToken(request);
  if (token === null || !isApiKeyShaped(token)) {
    throw new AppError(
      'MCP_AUTH_MISSING',
      'tool calls need an agent API key: Authorization: Bearer svc_live_…',
    );
  }
  const key = await services.keys.authenticate(token);
  if (key === null) throw new AppError('MCP_AUTH_INVALID', 'the API key is unknown, revoked or expired');
  request.agentKey = key;
}

/** The authenticated user of a `user` route; the hook guarantees it is set. */
export function currentUser(request: FastifyRequest) {
  if (request.user === null) throw unauthorized();
  return request.user;
}

/** The API key of an `apiKey` route; the hook guarantees it is set. */
export function currentAgentKey(request: FastifyRequest): AgentKey {
  if (request.agentKey === null) throw new AppError('MCP_AUTH_MISSING', 'an agent API key is required');
  return request.agentKey;
}
