// The one HTTP request a webhook delivery makes: POST, JSON, bounded in time (10 s for everything) and in what it
// reads back (a short excerpt), no redirects followed, and — unless private targets are allowed — a DNS lookup
// that refuses loopback, private and link-local addresses, so a name cannot be re-pointed at this machine
// between the check at creation and the delivery (the check runs on the address actually connected to).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isPrivateAddress } from '../domain/webhook-url.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
const EXCERPT_BYTES_MAX = 512;

export interface DeliveryAnswer {
  status: number | null;
  /** Why it failed (network, timeout, refused address), or a short excerpt of a non-2xx body. */
  error: string | null;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** dns.lookup that refuses private addresses; used by the socket itself, so it checks what is connected to. */
export function publicOnlyLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, []);
    const list = addresses as LookupAddress[];
    const refused = list.find((a) => isPrivateAddress(a.address));
    if (refused !== undefined || list.length === 0) {
      const denied = new Error(
        `${hostname} resolves to a private address (${refused?.address ?? 'none'})`,
      ) as NodeJS.ErrnoException;
      denied.code = 'EPRIVATE';
      return callback(denied, []);
    }
    if ((options as { all?: boolean }).all === true) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}

export function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
): Promise<DeliveryAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: DeliveryAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(answer);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      timeout: DELIVERY_TIMEOUT_MS,
      ...(allowPrivate ? {} : { lookup: publicOnlyLookup as never }),
    });
    const deadline = setTimeout(() => {
      req.destroy();
      finish({ status: null, error: `no answer within ${DELIVERY_TIMEOUT_MS} ms` });
    }, DELIVERY_TIMEOUT_MS);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < EXCERPT_BYTES_MAX) chunks.push(chunk.subarray(0, EXCERPT_BYTES_MAX - size));
        size += chunk.length;
      });
      res.on('end', () => finish(answerOf(res.statusCode ?? null, Buffer.concat(chunks))));
      res.on('error', (error) => finish({ status: res.statusCode ?? null, error: error.message }));
      res.on('close', () => finish(answerOf(res.statusCode ?? null, Buffer.concat(chunks))));
    });
    req.on('timeout', () => {
      req.destroy();
      finish({ status: null, error: `no answer within ${DELIVERY_TIMEOUT_MS} ms` });
    });
    req.on('error', (error) => finish({ status: null, error: error.message.slice(0, 200) }));
    req.end(body);
  });
}

/** Any 2xx is delivered; anything else (a redirect included: none is followed) is a failure with an excerpt. */
function answerOf(status: number | null, body: Buffer): DeliveryAnswer {
  const ok = status !== null && status >= 200 && status < 300;
  return { status, error: ok ? null : `HTTP ${status}: ${body.toString('utf8').slice(0, 200)}` };
}
