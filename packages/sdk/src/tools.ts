// LLM tool definitions built from the server's tool registry (src/tools.generated.ts), in the formats the
// Anthropic and OpenAI SDKs take. Hand a model's tool call to AgentWalletClient.callTool(name, input).
import type { ToolSpec } from './tool-spec.ts';
import { TOOL_SPECS } from './tools.generated.ts';
import type { JsonSchemaObject, Scope, ToolDataMap, ToolName } from './types.ts';

/** `tools` entry of Anthropic's Messages API. */
export interface AnthropicTool {
  name: ToolName;
  description: string;
  input_schema: JsonSchemaObject;
}

/** `tools` entry of OpenAI's Chat Completions API. */
export interface OpenAITool {
  type: 'function';
  function: {
    name: ToolName;
    description: string;
    parameters: JsonSchemaObject;
    /** Always true: the schemas meet OpenAI's strict function calling. */
    strict: true;
  };
}

export interface ToolFilter {
  /**
   * Only tools these scopes allow, e.g. `['read']` for a read-only key (a model offered a tool its key
   * cannot call would only get INSUFFICIENT_SCOPE). Default: every tool.
   */
  scopes?: readonly Scope[];
  /** Only these tools. */
  names?: readonly ToolName[];
  /**
   * The server's rail (`GET /api/v1/health` → `rail`): `evm` adds the paying tools (x402_fetch, x402_sign, paid_fetch, mpp_sign), which exist only there.
   * Default: the tools of every rail.
   */
  rail?: string;
}

export interface ToolDefinition {
  name: ToolName;
  description: string;
  /** The scope the key needs: `read` or `write`. */
  scope: Scope;
  inputSchema: JsonSchemaObject;
}

/** The tools as the server defines them (fresh copies: changing them changes nothing here). */
export function toolDefinitions(filter: ToolFilter = {}): ToolDefinition[] {
  return (TOOL_SPECS as readonly ToolSpec[])
    .filter(
      (tool) => tool.rails === undefined || (filter.rail !== undefined && tool.rails.includes(filter.rail)),
    )
    .filter((tool) => filter.scopes === undefined || filter.scopes.includes(tool.scope))
    .filter((tool) => filter.names === undefined || filter.names.includes(tool.name as ToolName))
    .map((tool) => {
      // The rail's own form where it differs; without a rail, the form every rail takes.
      const form = (filter.rail === undefined ? undefined : tool.railForms?.[filter.rail]) ?? tool;
      return {
        name: tool.name as ToolName,
        description: form.description,
        scope: tool.scope,
        inputSchema: structuredClone(form.inputSchema) as JsonSchemaObject,
      };
    });
}

/** For `anthropic.messages.create({ tools: anthropicTools(), ... })`. */
export function anthropicTools(filter: ToolFilter = {}): AnthropicTool[] {
  return toolDefinitions(filter).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
}

/** For `openai.chat.completions.create({ tools: openaiTools(), ... })`. */
export function openaiTools(filter: ToolFilter = {}): OpenAITool[] {
  // strict: every published schema is closed, lists every property as required and makes the optional ones
  // nullable (the server reads null as absent), which is what OpenAI's strict mode asks: the model's arguments
  // then always match the schema.
  return toolDefinitions(filter).map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: true },
  }));
}

// Compile-time check that the SDK's typed tool map and the generated registry name the same tools.
type GeneratedName = (typeof TOOL_SPECS)[number]['name'];
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const toolNamesMatch: SameKeys<GeneratedName, ToolName> & SameKeys<keyof ToolDataMap, ToolName> = true;
void toolNamesMatch;
