// CORS for ALLOWED_ORIGINS (contract section 6: the origins allowed to call the REST API and POST /mcp from a
// browser). The origin check (origin.ts) already refuses every other Origin with 403; for an allowed one a browser
// also needs the answer to say so, or it hides the answer from the page (and refuses to send a request that needs
// a preflight at all: a bearer token, a JSON body). Credentials are bearer tokens, never cookies, so no
// Access-Control-Allow-Credentials. A same-origin request (the dashboard) needs nothing and gets nothing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteMethods } from './methods.ts';

/** What a page may send: the token, a JSON body, an idempotency key, and the MCP transport's own headers. */
const ALLOWED_REQUEST_HEADERS =
  'authorization, content-type, idempotency-key, mcp-protocol-version, mcp-session-id, last-event-id';
/** What a page may read of an answer beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS =
  'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, www-authenticate, ' +
  'mcp-session-id, mcp-protocol-version, x-agent-wallet-rail';
/** How long a browser may keep a preflight's answer (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Pure: the allowed origin a request comes from (as the list spells it), or null (none, or not on the list). */
export function allowedCorsOrigin(
  origin: string | undefined,
  allowedOrigins: readonly string[],
): string | null {
  if (origin === undefined) return null;
  const lower = origin.toLowerCase();
  return allowedOrigins.includes(lower) ? lower : null;
}

/**
 * Adds the CORS headers to an answer for an allowed origin; answers a preflight (OPTIONS with
 * Access-Control-Request-Method on a path that has routes) itself and says so, so the gate stops there — a
 * preflight carries no credentials. Runs after the origin check, on /api and /mcp paths only.
 */
export function corsGate(
  allowedOrigins: readonly string[],
  routes: RouteMethods,
): (request: FastifyRequest, reply: FastifyReply) => boolean {
  return (request, reply) => {
    if (allowedOrigins.length === 0) return false;
    const origin = allowedCorsOrigin(request.headers.origin, allowedOrigins);
    if (origin === null) return false;
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    const preflight =
      request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if (!preflight) {
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
      return false;
    }
    const methods = routes.allowedFor(request.url);
    if (methods.length === 0) return false; // no such path: the usual 404
    reply
      .header('access-control-allow-methods', methods.join(', '))
      .header('access-control-allow-headers', ALLOWED_REQUEST_HEADERS)
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
    return true;
  };
}
