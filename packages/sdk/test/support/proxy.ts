// A fault-injecting HTTP proxy in front of the real server: it records every request and can fail the next
// N matching ones — a 503 (or any status) without reaching the server, a dropped connection before or
// after the server executed the request, a delay, or no answer at all.
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';

export type Fault =
  /** Answer this status without forwarding (default body: a SERVICE_UNAVAILABLE envelope). */
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  /** Close the connection without forwarding: the server never sees the request. */
  | { kind: 'drop' }
  /** Forward, let the server execute it, then close the connection: the answer is lost. */
  | { kind: 'drop-after-forward' }
  /** Forward after a delay. */
  | { kind: 'delay'; ms: number }
  /** Never answer. */
  | { kind: 'hang' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The fault applied, or null when forwarded untouched. */
  fault: Fault['kind'] | null;
  /** What the client got (undefined when the connection was dropped or hung). */
  status?: number;
}

export interface FaultProxy {
  url: string;
  requests: RecordedRequest[];
  /** Applies `fault` to the next `times` requests (that `match`, when given). */
  inject(fault: Fault, options?: { times?: number; match?: (method: string, path: string) => boolean }): void;
  /** Forgets pending faults and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

interface PendingFault {
  fault: Fault;
  remaining: number;
  match: ((method: string, path: string) => boolean) | undefined;
}

const SERVICE_UNAVAILABLE_BODY = JSON.stringify({
  success: false,
  error: { code: 'SERVICE_UNAVAILABLE', message: 'injected by the test proxy' },
});

export async function startProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const requests: RecordedRequest[] = [];
  let pending: PendingFault[] = [];

  const takeFault = (method: string, path: string): Fault | undefined => {
    const entry = pending.find((p) => p.remaining > 0 && (p.match === undefined || p.match(method, path)));
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    return entry.fault;
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const fault = takeFault(method, path);
    const record: RecordedRequest = { method, path, headers: req.headers, body, fault: fault?.kind ?? null };
    requests.push(record);

    switch (fault?.kind) {
      case 'status':
        record.status = fault.status;
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        res.end(fault.body ?? SERVICE_UNAVAILABLE_BODY);
        return;
      case 'drop':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'drop-after-forward':
        await forward(target, req, body);
        req.socket.destroy();
        return;
      case 'delay':
        await new Promise((done) => setTimeout(done, fault.ms));
        break;
      default:
        break;
    }
    try {
      const upstream = await forward(target, req, body);
      record.status = upstream.status;
      res.writeHead(upstream.status, upstream.headers);
      res.end(upstream.body);
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    inject(fault, options = {}) {
      pending.push({ fault, remaining: options.times ?? 1, match: options.match });
    },
    reset() {
      pending = [];
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}

interface Upstream {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function forward(target: URL, req: IncomingMessage, body: string): Promise<Upstream> {
  return new Promise((done, fail) => {
    const headers = { ...req.headers, host: target.host };
    delete headers.connection;
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const out: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined && name !== 'connection' && name !== 'keep-alive') out[name] = value;
          }
          done({ status: response.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
        });
        response.on('error', fail);
      },
    );
    upstream.on('error', fail);
    upstream.end(body);
  });
}
