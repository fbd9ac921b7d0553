// POST /mcp: MCP over Streamable HTTP (stateless, JSON responses), authenticated with the agent's API key
// like the REST tool routes. Each request gets its own MCP server bound to the key that sent it; endpoint.ts
// serves revision 2026-07-28 and the 2025 ones side by side.

import { specTypeSchemas } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { bearerToken } from '../http/auth.ts';
import { currentAgentKey, toolCallLimit } from '../http/auth-hooks.ts';
import { failureEnvelope } from '../http/schemas.ts';
import type { FaceServices } from '../services/index.ts';
import { createMcpEndpoint } from './endpoint.ts';

/** The largest JSON-RPC batch the SDK's 2025 transport takes (it refuses more with a 400); not exported by it. */
const MAX_BATCH_SIZE = 100;

/** The SDK publishes its wire schemas as Standard Schemas; they are zod ones, which the document is made from. */
function jsonSchemaOf(schema: unknown): Record<string, unknown> {
  if (!(schema instanceof z.ZodType)) throw new Error('the MCP SDK’s wire schemas are no longer zod schemas');
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return json;
}

/**
 * A JSON-RPC response a client posts: the transport takes it (202) without reading its result, so the document
 * allows any object there. The SDK's schema would also detail reserved result `_meta` keys (serverInfo) that
 * nothing checks on the way in, documenting refusals that never happen.
 */
function postedResultResponse(): Record<string, unknown> {
  const response = jsonSchemaOf(specTypeSchemas.JSONRPCResultResponse);
  const properties = response.properties as Record<string, unknown>;
  return { ...response, properties: { ...properties, result: { type: 'object' } } };
}

const message = {
  anyOf: [
    jsonSchemaOf(specTypeSchemas.JSONRPCRequest),
    jsonSchemaOf(specTypeSchemas.JSONRPCNotification),
    postedResultResponse(),
    jsonSchemaOf(specTypeSchemas.JSONRPCErrorResponse),
  ],
};
const rpcResponse = jsonSchemaOf(specTypeSchemas.JSONRPCResponse);
/**
 * What the transport answers a request it refuses: a JSON-RPC error whose id is null when it read none (on
 * 2026-07-28 the request's own id when it could read one).
 */
const rpcTransportError = {
  type: 'object',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
      required: ['code', 'message'],
    },
    // MCP's ids (a string or an integer JSON holds exactly); null when the request's own could not be read.
    id: {
      anyOf: [
        { type: 'null' },
        { type: 'string' },
        { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      ],
    },
  },
  required: ['jsonrpc', 'error', 'id'],
};

/** POST /mcp in the OpenAPI document. */
const ROUTE_SCHEMA = {
  operationId: 'mcp',
  summary: 'Model Context Protocol (Streamable HTTP)',
  description:
    'The tools over MCP for any MCP client, with the same API key. It speaks revision 2026-07-28 (no ' +
    'handshake: each request names the revision in params._meta["io.modelcontextprotocol/protocolVersion"] ' +
    'and the MCP-Protocol-Version header, and server/discover tells what the server supports) and the 2025 ' +
    'revisions a client asks for in initialize (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05). ' +
    'tools/list shows the tools the key’s ' +
    'scopes allow; each tools/call counts against the same per-key, per-tool rate limit as the REST tool, and ' +
    'its refusal is a tool result (isError, RATE_LIMITED, structuredContent.retryAfter); protocol requests ' +
    '(initialize, server/discover, notifications, ping, list calls) count only against the transport’s own ' +
    'generous limit (mcp_transport, per key). A write tool needs an idempotency key: its idempotencyKey ' +
    'param, else params._meta.idempotencyKey, else this request’s Idempotency-Key header; the same key again ' +
    'replays the first answer, never a second payment.',
  tags: ['tools'],
  security: [{ agentApiKey: [] }],
  // Documentation only: the MCP SDK validates JSON-RPC itself (see validatorCompiler below), with its own
  // schemas, which the document therefore shows.
  body: z
    .unknown()
    .meta({
      anyOf: [message, { type: 'array', items: message, minItems: 1, maxItems: MAX_BATCH_SIZE }],
    })
    .describe(
      'A JSON-RPC 2.0 message of the Model Context Protocol (a request such as server/discover, initialize, ' +
        'tools/list, tools/call or ping; a notification; a response), or, on the 2025 revisions, a batch of ' +
        `1 to ${MAX_BATCH_SIZE} of them.`,
    ),
  response: {
    200: z
      .unknown()
      .meta({ anyOf: [rpcResponse, { type: 'array', items: rpcResponse }] })
      .describe(
        'The JSON-RPC response (an array of them for a batch). A method MCP does not know, bad params or a ' +
          'failed tool call are JSON-RPC errors here, in a 200.',
      ),
    202: z.null().describe('Accepted: the body held only notifications or responses, so nothing answers it.'),
    '4XX': z
      .unknown()
      .meta({ anyOf: [jsonSchemaOf(failureEnvelope), rpcTransportError] })
      .describe(
        'Refused before MCP, in the failure envelope: a missing or invalid API key (401, with WWW-Authenticate), ' +
          'a foreign Origin or Host (403), a body over the limit (413) or the transport’s flood guard (429, ' +
          'mcp_transport). Refused by the MCP transport, as a JSON-RPC error: a body that is no JSON-RPC ' +
          'message or an empty batch (400), a message whose id is not a string or an integer (400, -32600, id ' +
          'null), an unsupported protocol version (400; -32022 with the supported ' +
          'ones on 2026-07-28), a 2026-07-28 request whose MCP-Protocol-Version, Mcp-Method or Mcp-Name ' +
          'header is missing or contradicts its body (400), or an Accept header without both ' +
          'application/json and text/event-stream on a 2025 revision (406).',
      ),
    '5XX': failureEnvelope.describe('A backing store is down (503 `SERVICE_UNAVAILABLE`).'),
  },
};

export function registerMcpRoutes(app: FastifyInstance, services: FaceServices): void {
  const endpoint = createMcpEndpoint(services, app.log);
  app.addHook('onClose', () => endpoint.close());
  app.route({
    method: 'POST',
    url: '/mcp',
    config: { auth: 'apiKey' },
    schema: ROUTE_SCHEMA,
    validatorCompiler: () => () => true,
    handler: async (request, reply) => {
      const response = await endpoint.serve(webRequestOf(request, reply), request.body, {
        key: currentAgentKey(request),
        context: {
          requestId: request.id,
          log: request.log,
          credential: bearerToken(request),
          idempotencyKeyHeader: request.headers['idempotency-key'],
          limitTool: toolCallLimit(services, request),
        },
      });
      // Fastify sends a web Response as is (status, headers, body), after the headers its hooks already set.
      return reply.send(response);
    },
  });
  // Stateless: no server-to-client stream (GET) and no session to delete (DELETE). Those methods answer 405
  // with `Allow: POST` like every other method a path lacks (http/methods.ts), as the transport spec asks.
}

/**
 * The web Request the SDK serves: the HTTP request's headers (the body is handed over already parsed). Its signal
 * aborts when the client goes away, which ends the SDK's exchange as the 1.x transport's close did.
 */
function webRequestOf(request: FastifyRequest, reply: FastifyReply): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const gone = new AbortController();
  reply.raw.on('close', () => gone.abort());
  return new Request(new URL(request.url, 'http://localhost'), {
    method: 'POST',
    headers,
    signal: gone.signal,
  });
}
