// DNS-rebinding and cross-site protection for the API and POST /mcp (contract section 6, ALLOWED_ORIGINS;
// the MCP transport spec's MUST on Origin). A page on evil.example whose name was rebound to 127.0.0.1 sends
// `Host: evil.example` and `Origin: http://evil.example`: same-origin to each other, so a server bound to
// loopback also insists that the Host names this machine. Any Origin not allowed gets 403, changing nothing.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export interface OriginCheckInput {
  /** The Origin header, if the client (a browser) sent one. */
  origin: string | undefined;
  /** The Host header (hostname[:port]). */
  host: string | undefined;
  /** http or https, as the request arrived (or as a trusted proxy says). */
  protocol: string;
  allowedOrigins: readonly string[];
  /** Host checks apply only to a server bound to loopback with no trusted proxy in front of it. */
  checkHost: boolean;
}

/** Pure: undefined when the request may go on, otherwise why it may not. */
export function originRefusal(input: OriginCheckInput): string | undefined {
  const host = (input.host ?? '').toLowerCase();
  if (
    input.checkHost &&
    !isLoopbackHost(host) &&
    !input.allowedOrigins.some((o) => new URL(o).host === host)
  ) {
    return `the Host header ${JSON.stringify(host)} does not name this server (DNS rebinding protection)`;
  }
  if (input.origin === undefined) return undefined;
  const origin = input.origin.toLowerCase();
  if (input.allowedOrigins.includes(origin)) return undefined;
  if (origin === `${input.protocol}://${host}`) return undefined;
  return `requests from origin ${JSON.stringify(input.origin)} are not allowed (ALLOWED_ORIGINS)`;
}

function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return LOOPBACK_NAMES.has(name ?? '');
}

function isLoopbackAddress(address: string): boolean {
  return LOOPBACK_NAMES.has(address) || address.startsWith('127.');
}

/**
 * Guards every /api and /mcp request; the dashboard's static files are plain GETs a browser may load. Throws
 * ORIGIN_NOT_ALLOWED; the app's one onRequest gate calls it (one hook, not one per concern: each async hook
 * costs a promise and a trip through Fastify's hook runner on every request).
 */
export function originCheck(config: Config): (request: FastifyRequest) => void {
  const checkHost = isLoopbackAddress(config.host) && config.trustedProxies === false;
  return (request) => {
    const path = request.url;
    if (!path.startsWith('/api/') && !path.startsWith('/mcp')) return;
    const refusal = originRefusal({
      origin: request.headers.origin,
      host: request.headers.host,
      protocol: request.protocol,
      allowedOrigins: config.allowedOrigins,
      checkHost,
    });
    if (refusal !== undefined) throw new AppError('ORIGIN_NOT_ALLOWED', refusal);
  };
}
