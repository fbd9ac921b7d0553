// The tools, each defined once: name, scope, description, zod input and handler. The REST tool routes,
// the MCP server, GET /mcp/v1/tools and the SDK's tool definitions are all generated from this list.
import { z } from 'zod';
import { idempotencyKeySchema } from '../http/schemas.ts';
import { checkBalanceTool } from './check-balance.ts';
import { checkPaymentTool } from './check-payment.ts';
import type { ToolDefinition } from './definition.ts';
import { getTxHistoryTool } from './get-tx-history.ts';
import { modelSchema } from './model-schema.ts';
import { mppSignTool } from './mpp-sign.ts';
import { paidFetchTool } from './paid-fetch.ts';
import { requestApprovalTool } from './request-approval.ts';
import { sendPaymentTool } from './send-payment.ts';
import { x402FetchTool } from './x402-fetch.ts';
import { x402SignTool } from './x402-sign.ts';

export { TOOL_NAMES, type ToolCall, type ToolDefinition, type ToolName } from './definition.ts';

export const TOOLS: readonly ToolDefinition[] = [
  checkBalanceTool,
  getTxHistoryTool,
  sendPaymentTool,
  requestApprovalTool,
  checkPaymentTool,
  x402FetchTool,
  x402SignTool,
  paidFetchTool,
  mppSignTool,
] as unknown as ToolDefinition[];

/** The tools a server on this rail offers (x402 only on evm); null: every tool (documentation, the SDK). */
export function toolsFor(rail: string | null): readonly ToolDefinition[] {
  return rail === null
    ? TOOLS
    : TOOLS.filter((tool) => tool.rails === undefined || tool.rails.includes(rail));
}

/** The tool of this name on this rail (null rail: any). */
export function toolByName(name: string, rail: string | null = null): ToolDefinition | undefined {
  return toolsFor(rail).find((tool) => tool.name === name);
}

/**
 * JSON Schema of everything a tool's input accepts, the older forms included: the OpenAPI document's (a fuzzer
 * holds the server to it). Models are shown toolPublishedInputSchema instead.
 */
export function toolInputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  return jsonSchemaOf(tool.input, 'input');
}

/** Over MCP a write tool's idempotency key is required (contract section 4), in these words. */
export const IDEMPOTENCY_KEY_DESCRIPTION =
  'a fresh value per intended payment; reuse it when retrying (the same key never pays twice)';

/**
 * A tool's input schema as GET /mcp/v1/tools, MCP tools/list and the SDK publish it on this rail (null: the
 * form every rail takes): in the subset OpenAI's strict mode and Gemini both take (model-schema.ts).
 * `idempotencyKeyRequired` (MCP): a write tool's idempotencyKey is a required string, not nullable.
 */
export function toolPublishedInputSchema(
  tool: ToolDefinition,
  rail: string | null,
  { idempotencyKeyRequired = false } = {},
): Record<string, unknown> {
  const input = tool.published?.(rail).input ?? tool.input;
  const schema = modelSchema(jsonSchemaOf(input, 'input'));
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  if (!idempotencyKeyRequired || tool.scope !== 'write' || properties.idempotencyKey === undefined)
    return schema;
  const key = modelSchema(jsonSchemaOf(idempotencyKeySchema, 'input'));
  properties.idempotencyKey = {
    ...key,
    description: [IDEMPOTENCY_KEY_DESCRIPTION, key.description].filter(Boolean).join(' '),
  };
  return schema;
}

/** A tool's description on this rail (null: every rail). */
export function toolDescription(tool: ToolDefinition, rail: string | null): string {
  return tool.published?.(rail).description ?? tool.description;
}

/** JSON Schema of a tool's success data: MCP tools/list's `outputSchema`. */
export function toolOutputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  return jsonSchemaOf(tool.output, 'output');
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** GET /mcp/v1/tools on this rail (null: every tool, each in the form every rail takes: the SDK). */
export function toolListing(rail: string | null = null) {
  return toolsFor(rail).map((tool) => ({
    name: tool.name,
    description: toolDescription(tool, rail),
    scope: tool.scope,
    inputSchema: toolPublishedInputSchema(tool, rail),
  }));
}
