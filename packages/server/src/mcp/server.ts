// The Model Context Protocol face of the tools (and the wallet's balance and recent transactions as resources). One MCP server is built per request for the API key
// that made it; tools/list shows the tools the key's scopes allow, and tools/call runs the same code path
// as POST /mcp/v1/tools/<name>: the same scope check, validation, policies, idempotency and rate limits.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { serviceError } from '../http/errors.ts';
import { enforceToolLimit } from '../http/rate-limit.ts';
import type { Services } from '../services/index.ts';
import type { AgentKey } from '../services/keys.ts';
import { executeTool } from '../tools/execute.ts';
import { toolByName, toolInputJsonSchema, toolOutputJsonSchema, toolsFor } from '../tools/registry.ts';
import { VERSION } from '../version.ts';
import type { McpRequestContext } from './context.ts';
import { listResources, readResource } from './resources.ts';

export function createMcpServer(services: Services, key: AgentKey, context: McpRequestContext): Server {
  const server = new Server(
    { name: 'agent-wallet', version: VERSION },
    { capabilities: { tools: {}, resources: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolsFor(services.config.rail)
      .filter((tool) => key.scopes.includes(tool.scope))
      .map((tool) => ({
        name: tool.name,
        description: `${tool.description} (scope: ${tool.scope})`,
        inputSchema: toolInputJsonSchema(tool) as { type: 'object'; [name: string]: unknown },
        outputSchema: toolOutputJsonSchema(tool) as { type: 'object'; [name: string]: unknown },
      })),
  }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: listResources(key) }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
    readResource(services, key, context, request.params.uri),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(services, key, context, request.params.name, request.params.arguments ?? {}),
  );
  return server;
}

async function callTool(
  services: Services,
  key: AgentKey,
  context: McpRequestContext,
  name: string,
  args: unknown,
): Promise<CallToolResult> {
  try {
    const tool = toolByName(name);
    if (tool !== undefined) await enforceToolLimit(services.limiter, tool.name, key.id);
    const outcome = await executeTool(services, {
      name,
      key,
      body: args,
      headerIdempotencyKey: undefined,
      credential: context.credential,
    });
    if (outcome.ok) {
      const data = outcome.data as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
    }
    return toolError(outcome.code, outcome.message, {
      ...outcome.details,
      ...(outcome.data ? { data: outcome.data } : {}),
    });
  } catch (thrown) {
    // Unexpected errors become INTERNAL_ERROR with the request id (and are logged), never raw driver text.
    const error = serviceError(thrown, context.log, context.requestId);
    return toolError(error.code, error.message, { ...error.details, ...error.headers });
  }
}

/** A tool error the model can read: the contract code first, then the message and any details as JSON. */
function toolError(code: string, message: string, details: Record<string, unknown>): CallToolResult {
  const extra = Object.keys(details).length > 0 ? `\n${JSON.stringify(details)}` : '';
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}${extra}` }] };
}
