// Verifying a webhook from the Agent Wallet Service (contract section 7): the `Agent-Wallet-Signature` header is
// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. Web Crypto only (Node 18+, browsers, edge
// runtimes): no dependency. Verify the raw body exactly as received, before parsing it.

export interface WebhookEvent<T = unknown> {
  /** `evt_…`: deliveries are at least once, so deduplicate on this. */
  id: string;
  type: string;
  createdAt: string;
  data: T;
}

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

const encoder = new TextEncoder();

/**
 * Checks the signature and the timestamp (at most `toleranceSeconds` from now, default 300) and returns the
 * parsed event; throws WebhookSignatureError otherwise. `nowSeconds` is for tests.
 */
export async function verifyWebhook<T = unknown>(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  toleranceSeconds = 300,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<WebhookEvent<T>> {
  const { timestamp, signatures } = parseHeader(header);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw new WebhookSignatureError(
      `the signature's timestamp is more than ${toleranceSeconds} s away from now`,
    );
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const expected = await hmacHex(secret, `${timestamp}.${body}`);
  if (!signatures.some((candidate) => constantTimeEqual(candidate, expected))) {
    throw new WebhookSignatureError('the signature does not match the body and the secret');
  }
  return JSON.parse(body) as WebhookEvent<T>;
}

function parseHeader(header: string | null | undefined): { timestamp: number; signatures: string[] } {
  if (header === null || header === undefined || header === '') {
    throw new WebhookSignatureError('no Agent-Wallet-Signature header');
  }
  let timestamp = Number.NaN;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^[0-9]{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (Number.isNaN(timestamp) || signatures.length === 0) {
    throw new WebhookSignatureError('the Agent-Wallet-Signature header is not t=…,v1=…');
  }
  return { timestamp, signatures };
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
