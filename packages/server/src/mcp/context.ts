// What the MCP server and its resources know of the HTTP request they answer.
import type { FastifyBaseLogger } from 'fastify';

/** Where a tools/call runs: its failures are logged with the HTTP request's id, as on the REST path. */
export interface McpRequestContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** The API key of the request (see ToolCall.credential). */
  credential: string | null;
  /** The HTTP request's Idempotency-Key header: a write tool's key when neither its params nor `_meta` give one. */
  idempotencyKeyHeader?: string | string[] | undefined;
}
