// What the MCP server and its resources know of the HTTP request they answer.
import type { FastifyBaseLogger } from 'fastify';
import type { ToolName } from '../domain/tool-names.ts';

/** Where a tools/call runs: its failures are logged with the HTTP request's id, as on the REST path. */
export interface McpRequestContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** The API key of the request (see ToolCall.credential). */
  credential: string | null;
  /** The HTTP request's Idempotency-Key header: a write tool's key when neither its params nor `_meta` give one. */
  idempotencyKeyHeader?: string | string[] | undefined;
  /** Counts a tool call in its tool's bucket (http/auth-hooks.ts toolCallLimit); throws RATE_LIMITED past it. */
  limitTool(tool: ToolName): Promise<void>;
}
