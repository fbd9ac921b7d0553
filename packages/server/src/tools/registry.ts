// The tools, each defined once: name, scope, description, zod input and handler. The REST tool routes,
// the MCP server, GET /mcp/v1/tools and the SDK's tool definitions are all generated from this list.
import { z } from 'zod';
import { checkBalanceTool } from './check-balance.ts';
import { checkPaymentTool } from './check-payment.ts';
import type { ToolDefinition } from './definition.ts';
import { getTxHistoryTool } from './get-tx-history.ts';
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

/** JSON Schema of a tool's input, as GET /mcp/v1/tools, MCP tools/list and the SDK publish it. */
export function toolInputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  return jsonSchemaOf(tool.input, 'input');
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

export function toolListing(rail: string | null = null) {
  return toolsFor(rail).map((tool) => ({
    name: tool.name,
    description: tool.description,
    scope: tool.scope,
    inputSchema: toolInputJsonSchema(tool),
  }));
}
