import type { JsonSchemaObject, Scope } from './types.ts';

/** One tool as the server's registry defines it (GET /mcp/v1/tools lists the same). */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly scope: Scope;
  readonly inputSchema: Readonly<JsonSchemaObject>;
  /** The rails the tool exists on (x402 tools: `evm`); absent: every rail. */
  readonly rails?: readonly string[];
  /** The tool as that rail's server lists it, where it differs (check_payment takes x402 requirements on `evm`). */
  readonly railForms?: Readonly<
    Record<string, { readonly description: string; readonly inputSchema: Readonly<JsonSchemaObject> }>
  >;
}
