// The tools, each defined once: name, scope, description, zod input and handler. The REST tool routes,
// the MCP server, GET /mcp/v1/tools and the SDK's tool definitions are all generated from this list.
import { z } from 'zod';
import type { Scope } from '../domain/api-keys.ts';
import type { Outcome } from '../domain/outcome.ts';
import type { Services } from '../services/index.ts';
import type { AgentKey } from '../services/keys.ts';
import { checkBalanceTool } from './check-balance.ts';
import { checkPaymentTool } from './check-payment.ts';
import { getTxHistoryTool } from './get-tx-history.ts';
import { requestApprovalTool } from './request-approval.ts';
import { sendPaymentTool } from './send-payment.ts';

export const TOOL_NAMES = [
  'check_balance',
  'get_tx_history',
  'send_payment',
  'request_approval',
  'check_payment',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface ToolCall<I> {
  key: AgentKey;
  input: I;
  /** From the Idempotency-Key header or the idempotencyKey param (write tools only). */
  idempotencyKey: string | null;
  services: Services;
}

export interface ToolDefinition<I = unknown> {
  name: ToolName;
  scope: Scope;
  description: string;
  input: z.ZodType<I>;
  run(call: ToolCall<I>): Promise<Outcome<unknown>>;
}

export const TOOLS: readonly ToolDefinition[] = [
  checkBalanceTool,
  getTxHistoryTool,
  sendPaymentTool,
  requestApprovalTool,
  checkPaymentTool,
] as unknown as ToolDefinition[];

export function toolByName(name: string): ToolDefinition | undefined {
  return TOOLS.find((tool) => tool.name === name);
}

/** JSON Schema of a tool's input, as GET /mcp/v1/tools, MCP tools/list and the SDK publish it. */
export function toolInputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return schema;
}

export function toolListing() {
  return TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    scope: tool.scope,
    inputSchema: toolInputJsonSchema(tool),
  }));
}
