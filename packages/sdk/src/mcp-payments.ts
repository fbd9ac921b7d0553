// Paid MCP tools (contract section 13): `withWalletPayments(client, agent)` wraps an MCP client so that a tool call
// a seller charges for is paid through the wallet — decided by the service under the wallet's policies and
// approvals, signed from its treasury — and repeated once with the payment. Both protocols' MCP transports:
// - x402: the tool answers a result with `isError: true` and the payment requirements (`{x402Version, accepts,
//   resource?}`) in `structuredContent`; the payment goes back in `_meta["x402/payment"]`.
// - MPP: the call fails with JSON-RPC error -32042 carrying `data.challenges`; the credential goes back in
//   `_meta["org.paymentauth/credential"]`, and the seller's receipt comes in `_meta["org.paymentauth/receipt"]`.
// Structural (any object with a `callTool` method: the official v2 `Client` and the 1.x one alike), so the SDK
// keeps zero runtime dependencies.
import type { AgentWalletClient } from './agent-client.ts';
import { newIdempotencyKey } from './http.ts';

/** JSON-RPC error code of an MPP payment request over MCP. */
export const MCP_PAYMENT_REQUIRED_CODE = -32042;
export const X402_PAYMENT_META_KEY = 'x402/payment';
export const MPP_CREDENTIAL_META_KEY = 'org.paymentauth/credential';

/** A paid tool call waits for the wallet owner's approval: approve it, then call again (same key: it pays). */
export class McpPaymentPendingError extends Error {
  readonly txId: string;
  readonly tool: string;
  constructor(tool: string, txId: string) {
    super(
      `the payment ${txId} for tool ${tool} awaits the wallet owner's approval; call again after it is approved`,
    );
    this.name = 'McpPaymentPendingError';
    this.txId = txId;
    this.tool = tool;
  }
}

export interface WalletPaymentsOptions {
  /** Stored with each payment. */
  memo?: string;
  /**
   * The idempotency key of a paid call. By default every call is a new purchase (a fresh key). Return a stable key
   * per intended call to retry safely — and so that the call after an owner's approval pays the approved payment.
   */
  idempotencyKey?: (call: { name: string; arguments?: unknown }) => string;
}

interface CallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [field: string]: unknown;
}

type CallTool = (params: CallParams, ...rest: unknown[]) => Promise<unknown>;

/** Wraps `client.callTool` in place (and returns the client): a paid call is paid through the wallet, once. */
export function withWalletPayments<C extends { callTool: (...args: never[]) => Promise<unknown> }>(
  client: C,
  agent: AgentWalletClient,
  options: WalletPaymentsOptions = {},
): C {
  const original = (client.callTool as unknown as CallTool).bind(client);
  const paying: CallTool = async (params, ...rest) => {
    const first = await firstAnswer(original, params, rest);
    const key = options.idempotencyKey?.(params) ?? `mcp:${params.name.slice(0, 64)}:${newIdempotencyKey()}`;
    const meta = await paymentFor(params, first, agent, key, options);
    if (meta === null) return (first as { result: unknown }).result;
    return original({ ...params, _meta: { ...params._meta, ...meta } }, ...rest);
  };
  Object.defineProperty(client, 'callTool', { value: paying, configurable: true, writable: true });
  return client;
}

/** The unpaid call's answer: its result, or the MPP payment error it threw (any other error is rethrown). */
async function firstAnswer(call: CallTool, params: CallParams, rest: unknown[]): Promise<FirstAnswer> {
  try {
    return { result: await call(params, ...rest) };
  } catch (error) {
    if (mppChallenges(error) !== null) return { error };
    throw error;
  }
}

type FirstAnswer = { result: unknown } | { error: unknown };

/** The `_meta` that pays for the call, or null when it asked for no payment (its first answer stands). */
async function paymentFor(
  params: CallParams,
  first: FirstAnswer,
  agent: AgentWalletClient,
  idempotencyKey: string,
  options: WalletPaymentsOptions,
): Promise<Record<string, unknown> | null> {
  const memo = options.memo === undefined ? {} : { memo: options.memo };
  if ('error' in first) {
    const challenge = payableChallenge(mppChallenges(first.error)!);
    const signed = await agent.mppSign({ challenge, idempotencyKey, ...memo });
    if (signed.credential === null) throw new McpPaymentPendingError(params.name, signed.txId);
    return { [MPP_CREDENTIAL_META_KEY]: signed.credential };
  }
  const requirements = x402Requirements(first.result);
  if (requirements === null) return null;
  const signed = await agent.x402Sign({ paymentRequirements: requirements, idempotencyKey, ...memo });
  if (signed.payload === null) throw new McpPaymentPendingError(params.name, signed.txId);
  return { [X402_PAYMENT_META_KEY]: signed.payload };
}

/** An x402 payment request in a tool result: `isError` with `{x402Version, accepts: [...]}` as structured content. */
function x402Requirements(result: unknown): Record<string, unknown> | null {
  if (result === null || typeof result !== 'object') return null;
  const { isError, structuredContent } = result as { isError?: unknown; structuredContent?: unknown };
  if (isError !== true || structuredContent === null || typeof structuredContent !== 'object') return null;
  const content = structuredContent as Record<string, unknown>;
  return typeof content.x402Version === 'number' && Array.isArray(content.accepts) ? content : null;
}

/** The challenges of an MPP payment request (JSON-RPC -32042 with `data.challenges`), or null. */
function mppChallenges(error: unknown): Record<string, unknown>[] | null {
  if (error === null || typeof error !== 'object') return null;
  const { code, data } = error as { code?: unknown; data?: { challenges?: unknown } };
  if (code !== MCP_PAYMENT_REQUIRED_CODE || !Array.isArray(data?.challenges)) return null;
  const challenges = data.challenges.filter(
    (c): c is Record<string, unknown> => c !== null && typeof c === 'object',
  );
  return challenges.length > 0 ? challenges : null;
}

/** The challenge to hand the service: an evm charge when one is offered (the one kind it pays), else the first. */
function payableChallenge(challenges: Record<string, unknown>[]): Record<string, unknown> {
  return challenges.find((c) => c.method === 'evm' && c.intent === 'charge') ?? challenges[0]!;
}
