// The HTTP side of x402_fetch: the request made for the agent (through the guarded outbound request: https only,
// no private targets unless X402_ALLOW_PRIVATE, no redirects, bounded time and size), the 402 answer read with
// the protocol's own client (@x402/core: the v2 PAYMENT-REQUIRED header, or a v1 body), and the answer handed
// back to the agent: status, a safe subset of headers, the body as text or base64.
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { checkWebhookUrl } from '../domain/webhook-url.ts';
import type { PaymentRequiredInfo } from '../domain/x402.ts';
import { AppError, invalid } from '../errors.ts';
import { hostAddresses, type OutboundAnswer, OutboundError, outboundRequest } from './outbound-http.ts';

export const X402_TOTAL_TIMEOUT_MS = 20_000;
const X402_IDLE_TIMEOUT_MS = 10_000;
export const X402_RESPONSE_BYTES_MAX = 1024 * 1024;

/** Headers the agent may not set: the transport's own, and the payment headers this service writes. */
const FORBIDDEN_REQUEST_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-authorization',
  'payment-signature',
  'x-payment',
]);

/** Response headers handed back to the agent; cookies and everything else stay here. */
const SAFE_RESPONSE_HEADERS = [
  'content-type',
  'content-language',
  'cache-control',
  'etag',
  'last-modified',
  'retry-after',
  'location',
  'payment-required',
  'payment-response',
  'x-payment-response',
];

export interface UpstreamRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
}

/** The URL the agent asked for, refused (400) unless it is one this service may fetch. */
export function upstreamUrl(value: string, allowPrivate: boolean): URL {
  const check = checkWebhookUrl(value, allowPrivate, hostAddresses());
  if (!check.ok) throw invalid(`url ${check.reason}`);
  return check.url;
}

/**
 * The agent's headers, minus those it may not set. Names and values are checked by the tool's input schema, and
 * an API key of this service anywhere in the request by the tool (domain/x402-request.ts).
 */
export function upstreamHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_REQUEST_HEADERS.has(lower)) throw invalid(`headers: ${lower} cannot be set`);
    out[lower] = value;
  }
  return out;
}

/** One request upstream; a transport failure is X402_UPSTREAM_ERROR carrying what the payment did (`data`). */
export async function callUpstream(
  request: UpstreamRequest,
  extraHeaders: Record<string, string>,
  options: { allowPrivate: boolean; failureData: Record<string, unknown> | undefined },
): Promise<OutboundAnswer> {
  try {
    return await outboundRequest({
      url: request.url,
      method: request.method,
      headers: { ...request.headers, ...extraHeaders },
      body: request.body === null ? null : Buffer.from(request.body, 'utf8'),
      totalTimeoutMs: X402_TOTAL_TIMEOUT_MS,
      idleTimeoutMs: X402_IDLE_TIMEOUT_MS,
      bodyBytesMax: X402_RESPONSE_BYTES_MAX,
      overflow: 'fail',
      allowPrivate: options.allowPrivate,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new AppError('X402_UPSTREAM_ERROR', `${request.url.host} could not be reached: ${error.message}`, {
      ...(options.failureData === undefined ? {} : { data: options.failureData }),
    });
  }
}

const protocol = new x402HTTPClient(new x402Client());

const headerReader = (answer: OutboundAnswer) => (name: string) => {
  const value = answer.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** The payment requirements of a 402 answer (v2 header or v1 body); X402_UPSTREAM_ERROR when unreadable. */
export function paymentRequiredOf(answer: OutboundAnswer): PaymentRequiredInfo {
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    body = undefined;
  }
  try {
    const required = protocol.getPaymentRequiredResponse(headerReader(answer), body) as PaymentRequiredInfo;
    if (!Array.isArray(required.accepts)) throw new Error('no accepts');
    return required;
  } catch {
    throw new AppError(
      'X402_UPSTREAM_ERROR',
      'the resource answered 402 without readable x402 payment requirements; nothing was paid',
    );
  }
}

/** The settlement the seller reports after a paid request (its transaction hash), or null. */
export function settlementOf(answer: OutboundAnswer): { success: boolean; transaction: string } | null {
  try {
    const settled = protocol.getPaymentSettleResponse(headerReader(answer));
    return { success: settled.success === true, transaction: String(settled.transaction ?? '') };
  } catch {
    return null;
  }
}

/** What the agent gets back: status, the safe headers, the body as UTF-8 text when it is text, else base64. */
export function answerForAgent(answer: OutboundAnswer): UpstreamAnswer {
  const headers: Record<string, string> = {};
  for (const name of SAFE_RESPONSE_HEADERS) {
    const value = headerReader(answer)(name);
    if (value !== undefined) headers[name] = value;
  }
  const text = isText(headers['content-type']) ? decodeUtf8(answer.body) : null;
  return {
    status: answer.status,
    headers,
    body: text ?? answer.body.toString('base64'),
    bodyEncoding: text === null ? 'base64' : 'utf8',
  };
}

function isText(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  return /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded))/i.test(contentType);
}

function decodeUtf8(body: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return null;
  }
}
