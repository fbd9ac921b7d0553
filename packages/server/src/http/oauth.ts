// The OAuth protocol endpoints (contract section 12) as agent hosts call them: metadata (RFC 9728, RFC 8414),
// registration (RFC 7591), token (RFC 6749 with PKCE and RFC 8707) and revocation (RFC 7009). They speak OAuth's
// own formats — form-encoded requests to token and revoke, `{error, error_description}` failures — because the
// hosts' OAuth clients expect exactly that; the owner's side of the flow (consent) is in routes/oauth/.
// Open to any origin (CORS `*`, no cookies are involved): browser-based MCP clients call them directly.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorizationServerMetadata, protectedResourceMetadata } from '../domain/oauth/protocol.ts';
import { AppError } from '../errors.ts';
import type { FaceServices } from '../services/index.ts';
import { OAuthError } from '../services/oauth/authorization-server.ts';
import { baseUrlFor, type HostRules, hostRulesOf, trustedBaseUrl } from './origin.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** PUBLIC_URL and ALLOWED_ORIGINS, for answers that name this service outside a route (the /mcp challenge). */
    hostRules: HostRules;
  }
}

/** Form bodies of token and revoke: at most this many bytes and parameters. */
const FORM_BYTES_MAX = 8_192;
const FORM_PARAMS_MAX = 20;
const FORM_PATHS = new Set(['/oauth/token', '/oauth/revoke']);

/**
 * The protected resource's metadata URL, for the /mcp challenge's resource_metadata; null when the request's host
 * is not one this server knows (the challenge then goes without it rather than point at that host).
 */
export function resourceMetadataUrl(request: FastifyRequest, rules: HostRules): string | null {
  const base = trustedBaseUrl(request.host, request.protocol, rules);
  return base === null ? null : `${base}/.well-known/oauth-protected-resource/mcp`;
}

export function registerOAuthRoutes(app: FastifyInstance, services: FaceServices): void {
  const rules = hostRulesOf(services.config);
  const base = (request: FastifyRequest) => baseUrlFor(request, rules);
  const open = { schema: { hide: true }, config: { auth: 'none' as const } };
  app.decorate('hostRules', rules);
  registerFormParser(app);
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    app.get(path, open, async (request) => protectedResourceMetadata(base(request)));
  }
  app.get('/.well-known/oauth-authorization-server', open, async (request) =>
    authorizationServerMetadata(base(request)),
  );
  app.post('/oauth/register', open, async (request, reply) =>
    answer(reply, 201, () => services.oauth.register(objectBody(request.body))),
  );
  app.post('/oauth/token', open, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return answer(reply, 200, () => services.oauth.token(formBody(request.body), `${base(request)}/mcp`));
  });
  app.post('/oauth/revoke', open, async (request, reply) =>
    answer(reply, 200, async () => {
      await services.oauth.revoke(formBody(request.body));
      return {};
    }),
  );
  // CORS preflight of a browser-based client (a JSON registration is not a simple request).
  for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
    app.options(path, open, async (_request, reply) =>
      reply
        .header('access-control-allow-methods', 'POST, OPTIONS')
        .header('access-control-allow-headers', 'content-type, authorization, mcp-protocol-version')
        .code(204)
        .send(),
    );
  }
}

/**
 * The protocol endpoints answer any origin (their failures and 404s too): the app's one request gate calls this,
 * rather than a hook of their own that every other request would pass through.
 */
export function isOAuthProtocolPath(url: string): boolean {
  return url.startsWith('/oauth/') || url.startsWith('/.well-known/oauth-');
}

/** Runs an endpoint; an OAuthError becomes RFC 6749's error body, anything else the usual envelope. */
async function answer(reply: FastifyReply, status: number, run: () => Promise<unknown>) {
  try {
    const data = await run();
    return reply.code(status).send(data);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return reply.code(error.status).send({ error: error.error, error_description: error.description });
  }
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_client_metadata', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The form's parameters; a JSON object's string fields are taken the same way (some clients send JSON). */
function formBody(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  if (body instanceof InvalidForm) throw new OAuthError('invalid_request', body.reason);
  const params: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') params[name] = value;
  return params;
}

class InvalidForm {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

/**
 * application/x-www-form-urlencoded, only on token and revoke (elsewhere a form post stays a 415: a browser
 * form cannot reach the JSON API). A parameter given twice is refused (RFC 6749 section 3.1).
 */
function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BYTES_MAX },
    (request, text, done) => {
      if (!FORM_PATHS.has(request.url.split('?', 1)[0] ?? '')) {
        const message =
          'body: Content-Type application/x-www-form-urlencoded is not accepted here: send application/json';
        done(new AppError('VALIDATION_ERROR', message), undefined);
        return;
      }
      const params = new URLSearchParams(String(text));
      const parsed: Record<string, string> = Object.create(null);
      let count = 0;
      for (const [name, value] of params) {
        count += 1;
        if (count > FORM_PARAMS_MAX || Object.hasOwn(parsed, name)) {
          done(
            null,
            new InvalidForm(`${name} is given twice, or there are over ${FORM_PARAMS_MAX} parameters`),
          );
          return;
        }
        parsed[name] = value;
      }
      done(null, parsed);
    },
  );
}
