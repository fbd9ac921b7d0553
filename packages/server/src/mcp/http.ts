// POST /mcp: MCP over Streamable HTTP (stateless, JSON responses), authenticated with the agent's API key
// like the REST tool routes. Each request gets its own MCP server bound to the key that sent it.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { bearerToken } from '../http/auth.ts';
import { currentAgentKey } from '../http/auth-hooks.ts';
import { failureEnvelope } from '../http/schemas.ts';
import type { Services } from '../services/index.ts';
import { createMcpServer } from './server.ts';

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
        'scopes allow; each tools/call counts against the same per-key, per-tool rate limit as the REST tool.',
      tags: ['tools'],
      security: [{ agentApiKey: [] }],
      // Documentation only: the MCP transport validates JSON-RPC itself (see validatorCompiler below).
      body: z
        .looseObject({
          jsonrpc: z.literal('2.0'),
          id: z.union([z.string(), z.number()]).optional(),
          method: z.string().optional(),
          params: z.record(z.string(), z.unknown()).optional(),
        })
        .describe(
          'A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, ping).',
        ),
      response: {
        200: z
          .unknown()
          .describe('The JSON-RPC answer (JSON, or an event stream when the client accepts it).'),
        '4XX': failureEnvelope.describe(
          'Refused before MCP: a missing or invalid API key (401), a foreign Origin or Host (403), a body over the limit (413) or the rate limit (429).',
        ),
        '5XX': failureEnvelope.describe('A backing store is down (503 `SERVICE_UNAVAILABLE`).'),
      },
    },
    validatorCompiler: () => () => true,
    handler: async (request, reply) => {
      const key = currentAgentKey(request);
      const server = createMcpServer(services, key, {
        requestId: request.id,
        log: request.log,
        credential: bearerToken(request),
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
