// In onRequest, before the body is read: identify the caller cheaply, count the request against its rate-limit
// bucket, then enforce what the route requires. So a flood is refused before any expensive work (password
// hashing, database writes), and an unauthenticated request before anything else happens.
// REST routes take a session JWT; tool routes take an agent's API key; neither accepts the other.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { roleAllows } from '../domain/organizations/roles.ts';
import { isToolName, type ToolName } from '../domain/tool-names.ts';
import { AppError } from '../errors.ts';
import { ipSubject } from '../limits/rules.ts';
import type { AuthenticatedUser } from '../services/identity/auth.ts';
import type { FaceServices } from '../services/index.ts';
import type { AgentKey } from '../services/keys/keys.ts';
import type { RequestMeta } from '../services/organizations/security-events.ts';
import { bearerToken, isApiKeyShaped, unauthorized } from './auth.ts';
import { isDashboardRequest } from './dashboard.ts';
import { enforceLimit, enforceToolLimit, type LimitTarget, restTarget, toolTarget } from './rate-limit.ts';
import type { AuthMode } from './route.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key of a tool call, set by the auth hook. */
    agentKey: AgentKey | null;
    /** The tool a /mcp/v1/tools/<name> request addresses, when it exists: failures carry it too. */
    toolName: string | null;
  }
}

/**
 * Authenticates and rate-limits a request by its route's `auth` mode; the app's one onRequest gate calls the
 * function this returns. The gate passes 'none' for a request it refuses anyway (a method the path does not
 * have): counted per IP like any unauthenticated request, whatever credential it carries.
 */
export function requestAuthenticator(
  app: FastifyInstance,
  services: FaceServices,
): (request: FastifyRequest, reply: FastifyReply, mode?: AuthMode) => Promise<void> {
  app.decorateRequest('user', null);
  app.decorateRequest('agentKey', null);
  app.decorateRequest('toolName', null);
  let lastSignalEpoch: string | undefined;
  // Another instance changed a key (revoked, rotated): cached lookups here are stale.
  const observeEpoch = (epoch: string | undefined): boolean => {
    if (epoch === undefined || epoch === lastSignalEpoch) return false;
    const changed = lastSignalEpoch !== undefined;
    lastSignalEpoch = epoch;
    if (changed) services.keys.clearCache();
    return changed;
  };
  services.limiter.onReconnect(() => services.keys.clearCache());

  return async (request, reply, mode = request.routeOptions.config?.auth ?? 'none') => {
    if (mode === 'user') return authenticateUser(request, reply, services);
    if (mode === 'apiKey') return authenticateAgent(request, reply, services, observeEpoch);
    // The dashboard's static files are not limited: they are cheap to serve, and a page load is several of
    // them, which would eat a per-IP bucket shared by everyone behind one NAT.
    if (services.config.dashboardDir !== undefined && isDashboardRequest(request)) return;
    // /mcp's other methods (GET, DELETE: 405) are transport overhead of MCP clients, not an endpoint of their own.
    const target = isMcpPath(request.url)
      ? { bucket: 'mcp_transport' as const, subject: ipSubject(request.ip) }
      : restTarget(request, null);
    await enforceLimit(services.limiter, request, reply, target);
  };
}

async function authenticateUser(
  request: FastifyRequest,
  reply: FastifyReply,
  services: FaceServices,
): Promise<void> {
  const token = bearerToken(request);
  const claims =
    token === null || isApiKeyShaped(token) ? null : await services.auth.verifyTokenSignature(token);
  await enforceLimit(services.limiter, request, reply, restTarget(request, claims?.userId ?? null));
  if (token === null) throw unauthorized();
  if (isApiKeyShaped(token))
    throw unauthorized('API keys are for the tool interface; the REST API needs a session token');
  const user = claims === null ? null : await services.auth.authenticate(token);
  if (user === null) throw unauthorized('the session token is invalid, expired or logged out');
  request.user = user;
  await requireRole(request, services, user);
}

/**
 * The one place roles are enforced (contract section 9), before the body is read: the route's least role, and
 * an organization's requireMfa (a member without a second factor may only enrol one).
 */
async function requireRole(request: FastifyRequest, services: FaceServices, user: AuthenticatedUser) {
  const config = request.routeOptions.config;
  const needed = config?.role;
  if (needed === undefined) throw new AppError('INTERNAL_ERROR', 'the route declares no role');
  if (!roleAllows(user.role, needed)) {
    throw new AppError(
      'FORBIDDEN_ROLE',
      `this needs the ${needed} role or higher; this member is ${user.role}`,
      {
        details: { requiredRole: needed, role: user.role },
      },
    );
  }
  if (!user.requireMfa || config?.mfaEnrolment === true) return;
  if ((await services.mfa.methods(user.userId)).length > 0) return;
  throw new AppError(
    'MFA_ENROLLMENT_REQUIRED',
    'the organization requires a second factor: enrol a TOTP app or a passkey first',
  );
}

async function authenticateAgent(
  request: FastifyRequest,
  reply: FastifyReply,
  services: FaceServices,
  observeEpoch: (epoch: string | undefined) => boolean,
): Promise<void> {
  const name = (request.params as { name?: unknown }).name;
  if (typeof name === 'string' && isToolName(name)) request.toolName = name;
  const token = bearerToken(request);
  const apiKeyToken = token !== null && isApiKeyShaped(token) ? token : null;
  let key = apiKeyToken === null ? null : await services.keys.authenticate(apiKeyToken);
  const decision = await enforceLimit(services.limiter, request, reply, agentTarget(request, key));
  if (observeEpoch(decision?.signalEpoch) && apiKeyToken !== null) {
    key = await services.keys.authenticate(apiKeyToken); // the key may have been revoked elsewhere
  }
  if (apiKeyToken === null) {
    throw new AppError(
      'MCP_AUTH_MISSING',
      'tool calls need an agent API key: Authorization: Bearer svc_live_…',
    );
  }
  if (key === null) throw new AppError('MCP_AUTH_INVALID', 'the API key is unknown, revoked or expired');
  request.agentKey = key;
}

/** Tool calls count per key and per tool; anything else with a valid key per route; no valid key per IP. */
function agentTarget(request: FastifyRequest, key: AgentKey | null): LimitTarget {
  if (key === null) return { bucket: 'tool_unauthenticated', subject: ipSubject(request.ip) };
  // toolName is set only for tools of the registry; each tool is its own bucket.
  if (request.toolName !== null && isToolName(request.toolName)) return toolTarget(request.toolName, key.id);
  // POST /mcp: the transport's flood guard; its tools/calls count in their tools' buckets (toolCallLimit below).
  if (isMcpPath(request.url)) return { bucket: 'mcp_transport', subject: `key:${key.id}` };
  return { bucket: 'default', subject: `key:${key.id}` };
}

function isMcpPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return path === '/mcp' || path === '/mcp/';
}

/**
 * The limit of each tool call an MCP request carries (tools/call, resources/read), for the MCP server to apply
 * when it knows the tool: the same bucket and key as POST /mcp/v1/tools/<name> (toolTarget), counted here with
 * every other limit, so the MCP layer holds no limiter. The request itself was counted by the gate above
 * (mcp_transport, the transport's flood guard) before its body was read.
 */
export function toolCallLimit(
  services: FaceServices,
  request: FastifyRequest,
): (tool: ToolName) => Promise<void> {
  const key = currentAgentKey(request);
  return (tool) => enforceToolLimit(services.limiter, toolTarget(tool, key.id));
}

/** Where the request came from, as sessions and security events record it. */
export function requestMeta(request: FastifyRequest): RequestMeta {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent.slice(0, 256) : null };
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
