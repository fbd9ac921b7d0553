// The HTTP side of x402_fetch and paid_fetch: the request made for the agent (through the guarded outbound
// request: https only, no private targets unless X402_ALLOW_PRIVATE, no redirects, bounded time and size), the
// seller's answer as the payment methods read it (payments/), and the answer handed back to the agent: status, a
// safe subset of headers, the body as text or base64.
import { checkWebhookUrl } from '../../domain/webhooks/webhook-url.ts';
import { AppError, type ErrorCode, invalid } from '../../errors.ts';
import type { SellerAnswer } from '../../payments/method.ts';
import { ANSWER_HEADERS, CREDENTIAL_HEADERS } from '../../payments/registry.ts';
import {
  hostAddresses,
  type OutboundAnswer,
  OutboundError,
  outboundRequest,
} from '../webhooks/outbound-http.ts';

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
  ...CREDENTIAL_HEADERS,
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
  ...ANSWER_HEADERS,
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

/** One request upstream; a transport failure is `upstreamCode` (X402_ or PAYMENT_UPSTREAM_ERROR) with `data`. */
export async function callUpstream(
  request: UpstreamRequest,
  extraHeaders: Record<string, string>,
  options: {
    allowPrivate: boolean;
    failureData: Record<string, unknown> | undefined;
    upstreamCode: ErrorCode;
  },
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
    throw new AppError(options.upstreamCode, `${request.url.host} could not be reached: ${error.message}`, {
      ...(options.failureData === undefined ? {} : { data: options.failureData }),
    });
  }
}

const headerReader = (answer: OutboundAnswer) => (name: string) => {
  const value = answer.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** A seller's answer as the payment methods read it. */
export function sellerAnswerOf(answer: OutboundAnswer): SellerAnswer {
  return {
    header: headerReader(answer),
    headerValues(name) {
      const value = answer.headers[name.toLowerCase()];
      return value === undefined ? [] : Array.isArray(value) ? value : [value];
    },
    bodyText: decodeUtf8(answer.body),
  };
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
