// The agent tools' names: the REST tool routes, MCP and the rate-limit buckets all know a tool by its name,
// so the names live on the bottom floor (the tools themselves, tools/registry.ts, are far above).
export const TOOL_NAMES = [
  'check_balance',
  'get_tx_history',
  'send_payment',
  'request_approval',
  'check_payment',
  'x402_fetch',
  'x402_sign',
  'paid_fetch',
  'mpp_sign',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** Whether a string names a tool (on any rail). */
export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}
