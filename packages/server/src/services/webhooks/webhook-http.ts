// The one HTTP request a webhook delivery makes: POST, JSON, through the guarded outbound request
// (outbound-http.ts): 10 s for everything, a short excerpt read back, no redirects followed, private targets
// refused at connect time unless allowed.
import { OutboundError, outboundRequest } from './outbound-http.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
const EXCERPT_BYTES_MAX = 512;

export interface DeliveryAnswer {
  status: number | null;
  /** Why it failed (network, timeout, refused address), or a short excerpt of a non-2xx body. */
  error: string | null;
}

export async function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
  signal?: AbortSignal,
): Promise<DeliveryAnswer> {
  try {
    const answer = await outboundRequest({
      url,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: Buffer.from(body, 'utf8'),
      totalTimeoutMs: DELIVERY_TIMEOUT_MS,
      idleTimeoutMs: DELIVERY_TIMEOUT_MS,
      bodyBytesMax: EXCERPT_BYTES_MAX,
      overflow: 'truncate',
      allowPrivate,
      ...(signal === undefined ? {} : { signal }),
    });
    return answerOf(answer.status, answer.body);
  } catch (error) {
    if (error instanceof OutboundError) return { status: null, error: error.message };
    throw error;
  }
}

/** Any 2xx is delivered; anything else (a redirect included: none is followed) is a failure with an excerpt. */
function answerOf(status: number, body: Buffer): DeliveryAnswer {
  const ok = status >= 200 && status < 300;
  return { status, error: ok ? null : `HTTP ${status}: ${body.toString('utf8').slice(0, 200)}` };
}
