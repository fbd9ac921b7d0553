// The Fastify application: envelope, parsers, error handling, security headers, authentication, every route
// and the OpenAPI document generated from the routes' zod schemas.
import fastifySwagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { requestIdSource } from '../domain/ids.ts';
import { findUnpairedSurrogate, mayHoldSurrogateEscape, type SurrogateFinding } from '../domain/unicode.ts';
import { AppError } from '../errors.ts';
import { requestAuthenticator } from '../http/auth-hooks.ts';
import { corsGate } from '../http/cors.ts';
import { registerDashboard } from '../http/dashboard.ts';
import { errorHandler, sendAppError } from '../http/errors.ts';
import { collectRouteMethods, methodNotAllowed } from '../http/methods.ts';
import { registerMetrics } from '../http/metrics-route.ts';
import { isOAuthProtocolPath, registerOAuthRoutes } from '../http/oauth.ts';
import { originCheck } from '../http/origin.ts';
import { toFastifyRoute } from '../http/route.ts';
import { successEnvelope } from '../http/schemas.ts';
import { registerMcpRoutes } from '../mcp/http.ts';
import { EVM_ONLY_ROUTES, OPERATION_IDS, ROUTES, SANDBOX_ONLY_ROUTES } from '../routes/index.ts';
import type { Services } from '../services/index.ts';
import { VERSION } from '../version.ts';
import { refineDocument } from './openapi.ts';

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface AppOptions {
  logger: Logger;
}

export async function buildApp(services: Services, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(services.config, options)).withTypeProvider<ZodTypeProvider>();
  app.server.maxConnections = services.config.http.maxConnections;
  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the API; bodies are serialised as plain JSON (amounts are already strings).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerJsonParser(app);
  app.setErrorHandler(errorHandler);
  const routeMethods = collectRouteMethods(app);
  registerGate(app, services, routeMethods);
  await app.register(fastifySwagger, openApiOptions(services.config.rail));
  for (const route of ROUTES) {
    if (SANDBOX_ONLY_ROUTES.has(route) && services.rail.name !== 'sandbox') continue;
    if (EVM_ONLY_ROUTES.has(route) && services.rail.name !== 'evm') continue;
    app.route(toFastifyRoute(route, services, successEnvelope, OPERATION_IDS.get(route)));
  }
  registerMcpRoutes(app, services);
  registerOAuthRoutes(app, services);
  registerMetrics(app, services);
  app.get('/api/v1/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async () =>
    app.swagger(),
  );
  const dashboard = await registerDashboard(app, services.config.dashboardDir);
  app.setNotFoundHandler((request, reply) => {
    // A route the router found may still hand the request on here (a dashboard file that does not exist).
    const wrongMethod = methodNotAllowed(routeMethods, routedRequest(request));
    if (wrongMethod !== null) return sendAppError(reply, wrongMethod);
    if (dashboard.servesPath(request)) return dashboard.sendIndex(reply);
    return sendAppError(
      reply,
      new AppError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
    );
  });
  return app;
}

function fastifyOptions(config: Services['config'], options: AppOptions) {
  return {
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // proxy-addr semantics: a hop count or a list; the client is the nearest address not trusted, never the
    // leftmost (client-written) X-Forwarded-For entry.
    trustProxy: trustProxyOption(config.trustedProxies),
    // Slow or idle clients cannot hold sockets: every phase of a connection has a bound.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    connectionTimeout: config.http.idleTimeoutMs,
    http: {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      // How often Node looks for requests past their timeouts (default 30 s would let them overstay).
      connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
    },
    requestIdHeader: false as const, // our own ids: a client cannot forge log correlation
    // A random prefix per app, so ids do not repeat across restarts or instances when a user quotes one to
    // support, then a counter: measured, 16 fresh random characters per request cost 3 % of check_balance's CPU.
    genReqId: requestIdSource(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    forceCloseConnections: 'idle' as const,
    // Errors raised before routing (a URL with broken percent-encoding) get the envelope too.
    frameworkErrors: (error: { code: string }, _request: unknown, reply: FastifyReply) =>
      sendAppError(reply, new AppError('VALIDATION_ERROR', `the request URL is malformed (${error.code})`)),
    return503OnClosing: false,
  };
}

/**
 * One gate for every request, in order: the headers every answer carries, refusal while shutting down, the
 * Origin/Host check, CORS for an allowed origin (a preflight is answered there), a method the path does not
 * have (405: here, before Fastify reads a body or asks a QUERY for its Content-Type, and before
 * authentication, so a client learns the method is wrong, not that it lacks a token), then authentication and
 * the rate limit.
 */
function registerGate(
  app: FastifyInstance,
  services: Services,
  routeMethods: ReturnType<typeof collectRouteMethods>,
) {
  const isClosing = registerShutdownHooks(app);
  const headers = commonHeaders(services.config.rail, services.config.publicUrl);
  const checkOrigin = originCheck(services.config);
  const cors = corsGate(services.config.allowedOrigins, routeMethods);
  const authenticate = requestAuthenticator(app, services);
  app.addHook('onRequest', async (request, reply) => {
    const api = isApiPath(request.url);
    reply.headers(api ? headers.api : headers.document);
    reply.header('x-request-id', request.id);
    if (isOAuthProtocolPath(request.url)) reply.header('access-control-allow-origin', '*');
    if (isClosing()) refuseWhileClosing(reply);
    checkOrigin(request);
    if (api && cors(request, reply)) return reply.code(204).send();
    const wrongMethod = methodNotAllowed(routeMethods, routedRequest(request));
    await authenticate(request, reply, wrongMethod === null ? undefined : 'none');
    if (wrongMethod !== null) throw wrongMethod;
  });
}

/** The document's frame and last pass, shared with the every-rail document (openapi-rails.ts). */
export function openApiOptions(rail: Services['config']['rail']): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Agent Wallet Service',
        version: VERSION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description:
          'Wallets, a double-entry ledger and spending policies for AI agents. Humans use the REST API with a JWT; ' +
          'agents call tools with a scoped API key. Every answer is `{success, data}` or `{success: false, error: ' +
          '{code, message}}`; amounts are decimal strings of USDC. A JSON body may not hold a `__proto__` key, nor a ' +
          '`constructor` object with a `prototype` key, anywhere (400 VALIDATION_ERROR). A method a path does not ' +
          'have is 405 METHOD_NOT_ALLOWED with `Allow`; a concrete path is its own, as OpenAPI matches paths ' +
          '(/api/v1/auth/sessions/end-others answers its POST only, not the DELETE of /api/v1/auth/sessions/{id}).',
      },
      servers: [{ url: '/', description: 'this server' }],
      components: {
        securitySchemes: {
          userJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          agentApiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'svc_live_… API key of one agent wallet',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (documents) =>
      'openapiObject' in documents ? refineDocument(documents.openapiObject, rail) : {},
  };
}

/** The request as the 405 check reads it: the route pattern the router chose, none for a 404. */
function routedRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url,
    routeUrl: request.is404 ? undefined : request.routeOptions.url,
  };
}

/** A hop count trusts that many addresses nearest the socket (proxy-addr's own meaning of a number). */
function trustProxyOption(trusted: number | string[] | false) {
  if (typeof trusted !== 'number') return trusted;
  return (_address: string, hop: number) => hop < trusted;
}

/**
 * Graceful shutdown: once closing starts, requests already running finish, requests that arrive on kept-alive
 * connections are refused with 503 (never executed, so never acknowledged), and every response asks the
 * client to close its connection, so the server is not kept open by idle keep-alive sockets.
 */
function registerShutdownHooks(app: FastifyInstance): () => boolean {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  return () => closing;
}

function refuseWhileClosing(reply: FastifyReply): never {
  reply.header('connection', 'close');
  throw new AppError('SERVICE_UNAVAILABLE', 'the server is shutting down; retry on another instance', {
    headers: { 'retry-after': '1' },
  });
}

const isApiPath = (url: string) => url.startsWith('/api/') || url.startsWith('/mcp');

// The dashboard's documents: frame-ancestors 'none' and no inline scripts (it is built to need neither).
const DOCUMENT_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

// JSON answers load nothing and are never framed: the OWASP REST set. Referrer-Policy and COOP only matter
// for documents, and every header is bytes on every tool call (measured: check_balance's answer was 952 bytes,
// most of them headers).
const API_SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

// Powerful browser features the dashboard never uses are off for it and anything it could load; passkeys
// (WebAuthn) stay allowed for the dashboard's own origin. On every answer: a JSON body opened as a page too.
const PERMISSIONS_POLICY =
  'camera=(), microphone=(), geolocation=(), payment=(), usb=(), ' +
  'publickey-credentials-get=(self), publickey-credentials-create=(self)';

// HSTS only when users reach the service over https (PUBLIC_URL; TLS usually ends at a proxy, so the socket
// cannot tell): a deployment on plain http on purpose (a private network) must not be pinned to https.
const HSTS = 'max-age=31536000; includeSubDomains';

function commonHeaders(rail: string, publicUrl: string | undefined) {
  // Contract section 4: every response of a sandbox server says so. Balances, tokens and keys must not sit in
  // shared caches; the dashboard's assets set their own policy.
  const shared = {
    'x-agent-wallet-rail': rail,
    'cache-control': 'no-store',
    'permissions-policy': PERMISSIONS_POLICY,
    ...(publicUrl?.startsWith('https://') === true ? { 'strict-transport-security': HSTS } : {}),
  };
  return {
    api: { ...API_SECURITY_HEADERS, ...shared },
    document: { ...DOCUMENT_SECURITY_HEADERS, ...shared },
  };
}

// An empty body is "no body" (POST /freeze sent with a JSON content type); anything else must be valid JSON.
// Fastify's parser refuses __proto__ and constructor.prototype keys (prototype poisoning). A string that is not
// Unicode (an unpaired surrogate) is refused here, once for every field of every route, tool and MCP call.
function registerJsonParser(app: FastifyInstance) {
  const parseSafely = app.getDefaultJsonParser('error', 'error');
  // Valid JSON refused for a "__proto__" key or a "constructor" holding "prototype" says so (the default parser
  // calls it invalid JSON); only the error path parses again.
  const parseJson: typeof parseSafely = (request, text, done) =>
    parseSafely(request, text, (error, parsed) => {
      if (error !== null && isPlainJson(text as string)) done(prototypeKey(), undefined);
      else done(error, parsed);
    });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') {
        done(null, undefined);
        return;
      }
      if (!mayHoldSurrogateEscape(text)) {
        parseJson(request, text, done);
        return;
      }
      parseJson(request, text, (error, parsed) => {
        const found = error === null ? findUnpairedSurrogate(parsed) : null;
        if (found === null) done(error, parsed);
        else done(notUnicode(found), undefined);
      });
    },
  );
}

function isPlainJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function prototypeKey(): AppError {
  return new AppError(
    'VALIDATION_ERROR',
    'the body holds a "__proto__" key or a "constructor" object with a "prototype" key, which no body may (prototype poisoning)',
  );
}

/** Names the field as validation messages do; a field name itself is not echoed. */
function notUnicode({ path, inFieldName }: SurrogateFinding): AppError {
  const where = path.length === 0 ? 'body' : path.join('.');
  const what = inFieldName ? `${where} has a field name that` : where;
  return new AppError('VALIDATION_ERROR', `${what} must be valid Unicode (it holds an unpaired surrogate)`);
}
