// POST /mcp: MCP over Streamable HTTP (stateless, JSON responses), authenticated with the agent's API key
// like the REST tool routes. Each request gets its own MCP server bound to the key that sent it.

import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema, JSONRPCResponseSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { bearerToken } from '../http/auth.ts';
import { currentAgentKey } from '../http/auth-hooks.ts';
import { failureEnvelope } from '../http/schemas.ts';
import type { Services } from '../services/index.ts';
import { createMcpServer } from './server.ts';

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return json;
}

const message = jsonSchemaOf(JSONRPCMessageSchema);
const rpcResponse = jsonSchemaOf(JSONRPCResponseSchema);
/** What the transport answers a request it refuses: a JSON-RPC error whose id is null (it read none). */
const rpcTransportError = {
  type: 'object',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
      required: ['code', 'message'],
    },
    id: { type: 'null' },
  },
  required: ['jsonrpc', 'error', 'id'],
};

export function registerMcpRoutes(app: FastifyInstance, services: Services): void {
  app.route({
    method: 'POST',
    url: '/mcp',
    config: { auth: 'apiKey' },
    schema: {
      operationId: 'mcp',
      summary: 'Model Context Protocol (Streamable HTTP)',
      description:
        'The tools over MCP for any MCP client, with the same API key. tools/list shows the tools the key’s ' +
        'scopes allow; each tools/call counts against the same per-key, per-tool rate limit as the REST tool, and ' +
        'its refusal is a tool result (isError, RATE_LIMITED, structuredContent.retryAfter); protocol requests ' +
        '(initialize, notifications, ping, list calls) count only against the transport’s own generous limit ' +
        '(mcp_transport, per key). A write tool needs an idempotency key: its idempotencyKey param, else ' +
        'params._meta.idempotencyKey, else this request’s Idempotency-Key header; the same key again replays the ' +
        'first answer, never a second payment.',
      tags: ['tools'],
      security: [{ agentApiKey: [] }],
      // Documentation only: the MCP transport validates JSON-RPC itself (see validatorCompiler below), with the
      // SDK's own schemas, which the document therefore shows.
      body: z
        .unknown()
        .meta({
          anyOf: [message, { type: 'array', items: message, minItems: 1, maxItems: MAX_BATCH_SIZE }],
        })
        .describe(
          'A JSON-RPC 2.0 message of the Model Context Protocol (a request such as initialize, tools/list, ' +
            `tools/call or ping; a notification; a response), or a batch of 1 to ${MAX_BATCH_SIZE} of them.`,
        ),
      response: {
        200: z
          .unknown()
          .meta({ anyOf: [rpcResponse, { type: 'array', items: rpcResponse }] })
          .describe(
            'The JSON-RPC response (an array of them for a batch). A method MCP does not know, bad params or a ' +
              'failed tool call are JSON-RPC errors here, in a 200.',
          ),
        202: z
          .null()
          .describe('Accepted: the body held only notifications or responses, so nothing answers it.'),
        '4XX': z
          .unknown()
          .meta({ anyOf: [jsonSchemaOf(failureEnvelope), rpcTransportError] })
          .describe(
            'Refused before MCP, in the failure envelope: a missing or invalid API key (401, with WWW-Authenticate), ' +
              'a foreign Origin or Host (403), a body over the limit (413) or the transport’s flood guard (429, ' +
              'mcp_transport). Refused by the MCP transport, ' +
              'as a JSON-RPC error with id null: a body that is no JSON-RPC message (400), an unsupported ' +
              'MCP-Protocol-Version (400), or an Accept header without both application/json and text/event-stream (406).',
          ),
        '5XX': failureEnvelope.describe('A backing store is down (503 `SERVICE_UNAVAILABLE`).'),
      },
    },
    validatorCompiler: () => () => true,
    handler: async (request, reply) => {
      const key = currentAgentKey(request);
      // JSON-RPC 2.0: an empty batch is an invalid request (the SDK's transport would accept it with a 202).
      if (Array.isArray(request.body) && request.body.length === 0) {
        return reply.code(400).send({
          jsonrpc: '2.0',
          error: { code: -32600, message: 'Invalid Request: an empty batch' },
          id: null,
        });
      }
      const server = createMcpServer(services, key, {
        requestId: request.id,
        log: request.log,
        credential: bearerToken(request),
        idempotencyKeyHeader: request.headers['idempotency-key'],
      });
      // Stateless: no session to keep between requests, so any instance can answer any request.
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
  // Stateless: no server-to-client stream (GET) and no session to delete (DELETE). Those methods answer 405
  // with `Allow: POST` like every other method a path lacks (http/methods.ts), as the transport spec asks.
}
