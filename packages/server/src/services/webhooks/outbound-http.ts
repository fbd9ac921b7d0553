// Every request this service makes to a URL someone else chose (webhook deliveries, x402_fetch) goes through
// here: bounded in time (an idle limit and a total deadline), in what it reads back (a size cap), no redirect
// followed, and — unless private targets are allowed — only public addresses (domain/webhooks/webhook-url.ts): a name
// through a DNS lookup run by the socket itself, so the check is on the address actually connected to (a name
// cannot be re-pointed at this machine between a check and the request); an address literal, which the socket
// connects to without any lookup, checked here before the request starts.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import {
  type ClientRequest,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { addressSet, isPrivateAddress } from '../../domain/webhooks/webhook-url.ts';

export interface OutboundRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
  /** Everything, from DNS to the last byte. */
  totalTimeoutMs: number;
  /** Connecting, and any silence after. */
  idleTimeoutMs: number;
  bodyBytesMax: number;
  /** `truncate`: keep the first bodyBytesMax bytes (an excerpt); `fail`: a larger body is an error. */
  overflow: 'truncate' | 'fail';
  allowPrivate: boolean;
  /** Gives up at once when aborted (shutdown), like a timeout. */
  signal?: AbortSignal;
}

export interface OutboundAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Why no answer came: unreachable, refused address, timeout, too large. The message names no secret. */
export class OutboundError extends Error {}

/**
 * A refused address and a host that cannot be reached read alike, so an answer to the caller (x402_fetch's
 * error, a delivery's lastError) tells neither what a name resolves to inside nor whether a port is open.
 */
export const UNREACHABLE = 'no connection could be made';
const UNREACHABLE_CODES = new Set([
  'EPRIVATE',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
]);

let ownAddresses: ReadonlySet<string> | undefined;

/** This host's interface addresses, read once (they are refused like private ones). */
export function hostAddresses(): ReadonlySet<string> {
  ownAddresses ??= addressSet(
    Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address)),
  );
  return ownAddresses;
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
    const own = hostAddresses();
    if (list.length === 0 || list.some((a) => isPrivateAddress(a.address, own))) {
      const denied = new Error(`${hostname} does not resolve to a public address`) as NodeJS.ErrnoException;
      denied.code = 'EPRIVATE';
      return callback(denied, []);
    }
    if ((options as { all?: boolean }).all === true) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}

/** An address literal is connected to without a lookup: it is checked here instead. */
function isRefusedLiteral(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && isPrivateAddress(host, hostAddresses());
}

/** What the caller is told of a failed request: the transport's words, except where they would tell too much. */
function failure(error: NodeJS.ErrnoException): OutboundError {
  if (error.code !== undefined && UNREACHABLE_CODES.has(error.code)) return new OutboundError(UNREACHABLE);
  return new OutboundError(error.message.slice(0, 200));
}

export function outboundRequest(request: OutboundRequest): Promise<OutboundAnswer> {
  if (!request.allowPrivate && isRefusedLiteral(request.url)) {
    return Promise.reject(new OutboundError(UNREACHABLE));
  }
  return new Promise((resolve, reject) => {
    if (request.signal?.aborted === true) {
      reject(new OutboundError('aborted: the service is stopping'));
      return;
    }
    let settled = false;
    const finish = (error: OutboundError | null, answer?: OutboundAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.signal?.removeEventListener('abort', aborted);
      if (error !== null) reject(error);
      else resolve(answer!);
    };
    const send = request.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = {
      ...request.headers,
      ...(request.body === null ? {} : { 'content-length': request.body.length }),
    };
    const req = send(request.url, {
      method: request.method,
      headers,
      timeout: request.idleTimeoutMs,
      ...(request.allowPrivate ? {} : { lookup: publicOnlyLookup as never }),
    });
    const timedOut = (ms: number) => {
      req.destroy();
      finish(new OutboundError(`no answer within ${ms} ms`));
    };
    const deadline = setTimeout(() => timedOut(request.totalTimeoutMs), request.totalTimeoutMs);
    req.on('response', (res) => readBody(res, request, req, finish));
    req.on('timeout', () => timedOut(request.idleTimeoutMs));
    req.on('error', (error) => finish(failure(error)));
    const aborted = () => {
      req.destroy();
      finish(new OutboundError('aborted: the service is stopping'));
    };
    request.signal?.addEventListener('abort', aborted, { once: true });
    req.end(request.body ?? undefined);
  });
}

function readBody(
  res: IncomingMessage,
  request: OutboundRequest,
  req: ClientRequest,
  finish: (error: OutboundError | null, answer?: OutboundAnswer) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const answer = () => ({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
  res.on('data', (chunk: Buffer) => {
    if (size + chunk.length > request.bodyBytesMax && request.overflow === 'fail') {
      req.destroy();
      finish(new OutboundError(`the answer is larger than ${request.bodyBytesMax} bytes`));
      return;
    }
    if (size < request.bodyBytesMax) chunks.push(chunk.subarray(0, request.bodyBytesMax - size));
    size += chunk.length;
  });
  res.on('end', () => finish(null, answer()));
  res.on('error', (error) => finish(new OutboundError(error.message.slice(0, 200))));
  res.on('close', () => {
    if (res.complete || request.overflow === 'truncate') finish(null, answer());
    else finish(new OutboundError('the connection closed before the answer was complete'));
  });
}
