// What a tool is: its name, scope, description, zod input and output, and handler. Each tool's module defines
// one; registry.ts lists them (and imports the modules, so they import this file, not the registry).
import type { z } from 'zod';
import type { Scope } from '../domain/keys/api-keys.ts';
import type { Outcome } from '../domain/outcome.ts';
import type { ToolName } from '../domain/tool-names.ts';
import type { FaceServices } from '../services/index.ts';
import type { AgentKey } from '../services/keys/keys.ts';

export { TOOL_NAMES, type ToolName } from '../domain/tool-names.ts';

export interface ToolCall<I> {
  key: AgentKey;
  input: I;
  /** From the Idempotency-Key header or the idempotencyKey param (write tools only). */
  idempotencyKey: string | null;
  services: FaceServices;
  /** The API key the caller presented, only so x402_fetch can refuse to send it on; never stored or logged. */
  credential: string | null;
}

export interface ToolDefinition<I = unknown> {
  name: ToolName;
  scope: Scope;
  description: string;
  input: z.ZodType<I>;
  /** The success data (MCP `outputSchema`, `structuredContent`). */
  output: z.ZodType;
  /**
   * JSON Schema keywords the OpenAPI document adds to the input for a rule across params (check_payment: toAddress
   * and amount, or paymentRequirements alone). Not in tools/list: LLM tool formats refuse a top-level oneOf.
   */
  inputRule?: Record<string, unknown>;
  /** The rails the tool exists on; every rail when absent. */
  rails?: readonly string[];
  /**
   * What models are shown on a rail (null: the form every rail takes), where it differs from `input`: a param
   * that exists only on some rail, or a closed form of an open object. `input` stays what the server accepts,
   * the older forms included (the original SDK's calls), so it accepts everything this publishes.
   */
  published?(rail: string | null): { input: z.ZodType; description?: string };
  run(call: ToolCall<I>): Promise<Outcome<unknown>>;
}
