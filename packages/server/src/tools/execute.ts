// One code path for every tool call, whether it arrives at POST /mcp/v1/tools/<name> or as an MCP tools/call:
// the tool must exist, the key must hold its scope, the params must validate, then the tool runs.
import type { Scope } from '../domain/keys/api-keys.ts';
import type { Outcome } from '../domain/outcome.ts';
import { AppError, invalid } from '../errors.ts';
import { describeIssues } from '../http/schemas.ts';
import type { FaceServices } from '../services/index.ts';
import type { AgentKey } from '../services/keys/keys.ts';
import { chooseIdempotencyKey } from '../services/money/idempotency.ts';
import { toolByName } from './registry.ts';

export interface ToolInvocation {
  name: string;
  key: AgentKey;
  /** The request body: `{"params": {...}}`, or the params themselves. */
  body: unknown;
  /** The Idempotency-Key header, if any. */
  headerIdempotencyKey: string | string[] | undefined;
  /**
   * MCP calls only (contract section 4): a write tool's idempotency key is required; `fallbackKey` serves a call
   * whose params give none (from `_meta.idempotencyKey`, else the request's Idempotency-Key header). Read only
   * for a write tool whose scope and params passed, so those refusals come first.
   */
  mcpIdempotency?: { fallbackKey: () => string | null };
  /** The API key the call was made with (see ToolCall); null where no tool can send it anywhere. */
  credential: string | null;
}

export async function executeTool(
  services: FaceServices,
  invocation: ToolInvocation,
): Promise<Outcome<unknown>> {
  const tool = toolByName(invocation.name, services.config.rail);
  if (tool === undefined) {
    throw new AppError(
      'UNKNOWN_TOOL',
      `there is no tool named ${JSON.stringify(invocation.name.slice(0, 64))}`,
    );
  }
  assertScope(invocation.key.scopes, tool.scope, tool.name);
  const parsed = tool.input.safeParse(paramsOf(invocation.body));
  if (!parsed.success) throw invalid(describeIssues(parsed.error.issues, 'params'));
  const input = parsed.data as { idempotencyKey?: string };
  const idempotencyKey = tool.scope === 'write' ? idempotencyKeyOf(invocation, input.idempotencyKey) : null;
  const outcome = await tool.run({
    key: invocation.key,
    input,
    idempotencyKey,
    services,
    credential: invocation.credential,
  });
  if (tool.name === 'send_payment') services.metrics.payment(paymentStatusOf(outcome), services.config.rail);
  return outcome;
}

/**
 * REST: the header or the param (both given: they must agree), or none. MCP: the param, else the call's fallback
 * (the `_meta` key, else the request's header), and never none: over MCP a write tool's key is required.
 */
function idempotencyKeyOf(invocation: ToolInvocation, param: string | undefined): string | null {
  if (invocation.mcpIdempotency === undefined)
    return chooseIdempotencyKey(invocation.headerIdempotencyKey, param);
  const key = param ?? invocation.mcpIdempotency.fallbackKey();
  if (key === null)
    throw invalid(
      'params: idempotencyKey is required over MCP: a fresh value per intended payment; reuse it when retrying',
    );
  return key;
}

/** The recorded transaction's status, or `refused` when the payment was turned away before one existed. */
function paymentStatusOf(outcome: Outcome<unknown>): string {
  const data = outcome.data as { status?: unknown } | undefined;
  return typeof data?.status === 'string' ? data.status : 'refused';
}

export function assertScope(granted: readonly Scope[], needed: Scope, toolName: string): void {
  if (granted.includes(needed)) return;
  throw new AppError(
    'INSUFFICIENT_SCOPE',
    `${toolName} needs the "${needed}" scope; this key has ${granted.map((s) => `"${s}"`).join(' and ')}`,
  );
}

/** `{"params": {...}}` is unwrapped; a body without `params` (for example `{}`) is the params itself. */
function paramsOf(body: unknown): unknown {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object');
  if (!Object.hasOwn(body, 'params')) return body;
  const { params, ...rest } = body as { params: unknown };
  const extra = Object.keys(rest);
  if (extra.length > 0)
    throw invalid(`unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')} beside params`);
  if (params === null || typeof params !== 'object' || Array.isArray(params))
    throw invalid('params must be an object');
  return params;
}
