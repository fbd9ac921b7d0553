// The Model Context Protocol face of the tools (and the wallet's balance and recent transactions as resources). One MCP server is built per request for the API key
// that made it; tools/list shows the tools the key's scopes allow, and tools/call runs the same code path
// as POST /mcp/v1/tools/<name>: the same scope check, validation, policies, idempotency and rate limits.
// The same server answers every revision (2026-07-28 and the 2025 ones); endpoint.ts picks the transport.
import { type CallToolResult, Server } from '@modelcontextprotocol/server';
import { invalid } from '../errors.ts';
import { serviceError } from '../http/errors.ts';
import { describeIssues, idempotencyKeySchema } from '../http/schemas.ts';
import type { FaceServices } from '../services/index.ts';
import type { AgentKey } from '../services/keys/keys.ts';
import { chooseIdempotencyKey } from '../services/money/idempotency.ts';
import { executeTool } from '../tools/execute.ts';
import {
  type ToolDefinition,
  toolByName,
  toolDescription,
  toolOutputJsonSchema,
  toolPublishedInputSchema,
  toolsFor,
} from '../tools/registry.ts';
import { VERSION } from '../version.ts';
import type { McpRequestContext } from './context.ts';
import { listResources, readResource } from './resources.ts';

/** Where a tools/call may carry its idempotency key outside the params: `params._meta.idempotencyKey`. */
export const META_IDEMPOTENCY_KEY = 'idempotencyKey';

const IDEMPOTENCY_KEY_DESCRIPTION =
  'a fresh value per intended payment; reuse it when retrying (the same key never pays twice)';

/**
 * The low-level Server rather than McpServer (which the SDK recommends): McpServer validates arguments itself and
 * answers an unknown or unlisted tool with a protocol error, while the contract wants the REST path's own
 * validation, scope refusal and codes as tool results, and a tools/list filtered per key.
 */
export function createMcpServer(services: FaceServices, key: AgentKey, context: McpRequestContext): Server {
  const server = new Server(
    { name: 'agent-wallet', version: VERSION },
    { capabilities: { tools: {}, resources: {} } },
  );
  server.setRequestHandler('tools/list', async () => ({
    tools: toolsFor(services.config.rail)
      .filter((tool) => key.scopes.includes(tool.scope))
      .map((tool) => ({
        name: tool.name,
        description:
          tool.scope === 'write'
            ? `${toolDescription(tool, services.config.rail)} (scope: ${tool.scope}; idempotencyKey: ${IDEMPOTENCY_KEY_DESCRIPTION} — ` +
              `or give it as _meta.${META_IDEMPOTENCY_KEY} or the Idempotency-Key header)`
            : `${toolDescription(tool, services.config.rail)} (scope: ${tool.scope})`,
        inputSchema: mcpInputSchema(tool, services.config.rail),
        outputSchema: mcpOutputSchema(tool),
      })),
  }));
  server.setRequestHandler('resources/list', async () => ({ resources: listResources(key) }));
  server.setRequestHandler('resources/read', async (request) =>
    readResource(services, key, context, request.params.uri),
  );
  server.setRequestHandler('tools/call', async (request) =>
    callTool(
      services,
      key,
      context,
      request.params.name,
      request.params.arguments ?? {},
      request.params._meta,
    ),
  );
  return server;
}

async function callTool(
  services: FaceServices,
  key: AgentKey,
  context: McpRequestContext,
  name: string,
  args: unknown,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  try {
    const tool = toolByName(name);
    if (tool !== undefined) await context.limitTool(tool.name);
    const outcome = await executeTool(services, {
      name,
      key,
      body: args,
      headerIdempotencyKey: undefined,
      mcpIdempotency: { fallbackKey: () => fallbackIdempotencyKey(meta, context.idempotencyKeyHeader) },
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
    return toolError(error.code, error.message, error.details ?? {}, error.headers);
  }
}

/**
 * The key of a call whose params give none: `_meta.idempotencyKey`, else the HTTP request's Idempotency-Key
 * header (one per HTTP request: a batch of calls shares it). Each is checked like the param.
 */
function fallbackIdempotencyKey(
  meta: Record<string, unknown> | undefined,
  header: string | string[] | undefined,
): string | null {
  const fromMeta = meta?.[META_IDEMPOTENCY_KEY];
  if (fromMeta !== undefined && fromMeta !== null) {
    const parsed = idempotencyKeySchema.safeParse(fromMeta);
    if (!parsed.success) throw invalid(describeIssues(parsed.error.issues, `_meta.${META_IDEMPOTENCY_KEY}`));
    return parsed.data;
  }
  return chooseIdempotencyKey(header, undefined);
}

/** tools/list's input schema: the published one, where a write tool's idempotencyKey is required (contract section 4). */
function mcpInputSchema(tool: ToolDefinition, rail: string): { type: 'object'; [name: string]: unknown } {
  return toolPublishedInputSchema(tool, rail, { idempotencyKeyRequired: true }) as { type: 'object' };
}

/**
 * tools/list's output schema: the tool's data, or what a tool error carries in structuredContent (clients such
 * as the 1.x SDK validate structuredContent against it, errors included).
 */
function mcpOutputSchema(tool: ToolDefinition): { type: 'object'; [name: string]: unknown } {
  return { type: 'object', anyOf: [toolOutputJsonSchema(tool), TOOL_ERROR_JSON_SCHEMA] };
}

const TOOL_ERROR_JSON_SCHEMA = {
  type: 'object',
  description: 'a tool error (isError: true): the contract code, its message and details',
  properties: {
    code: { type: 'string', description: 'e.g. POLICY_DENIED, RATE_LIMITED, VALIDATION_ERROR' },
    message: { type: 'string' },
    violations: {
      type: 'array',
      items: { type: 'object' },
      description: 'POLICY_DENIED: every violated policy',
    },
    data: { type: 'object', description: 'the record the failure still produced (a rejected payment)' },
    retryAfter: { type: 'integer', minimum: 1, description: 'seconds to wait before retrying' },
  },
  required: ['code', 'message'],
};

/**
 * A tool error the model can read and a program can tell apart from a broken call: the contract code first, then
 * the message and any details as JSON; `structuredContent` holds `{code, message, ...details}` (a denial's
 * `violations` and `data`; `retryAfter` seconds for RATE_LIMITED and other refusals worth retrying).
 */
function toolError(
  code: string,
  message: string,
  details: Record<string, unknown>,
  headers: Record<string, string> = {},
): CallToolResult {
  const retryAfter = Number(headers['retry-after']);
  const extra = { ...details, ...(Number.isInteger(retryAfter) && retryAfter > 0 ? { retryAfter } : {}) };
  const text = Object.keys(extra).length > 0 ? `\n${JSON.stringify(extra)}` : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${message}${text}` }],
    structuredContent: { code, message, ...extra },
  };
}
