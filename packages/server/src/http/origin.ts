// DNS-rebinding and cross-site protection (contract section 6, ALLOWED_ORIGINS; the MCP transport spec's MUST on
// Origin), and where this server says it is reached. A page on evil.example whose name was rebound to 127.0.0.1
// sends `Host: evil.example` and `Origin: http://evil.example`: same-origin to each other, so a server bound to
// loopback also insists, on every path, that the Host names this machine. Any Origin not allowed gets 403 on the
// API and /mcp, changing nothing. And a URL this server hands out (the OAuth issuer and endpoints, the /mcp
// challenge's metadata URL) is built from PUBLIC_URL or a host it knows, never from a Host header someone chose.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** What a server knows about where it is reached: PUBLIC_URL and ALLOWED_ORIGINS. */
export interface HostRules {
  publicUrl: string | undefined;
  allowedOrigins: readonly string[];
}

export interface OriginCheckInput extends HostRules {
  /** The Origin header, if the client (a browser) sent one and the path is guarded against other origins. */
  origin: string | undefined;
  /** The Host header (hostname[:port]). */
  host: string | undefined;
  /** http or https, as the request arrived (or as a trusted proxy says). */
  protocol: string;
  /** Host checks apply only to a server bound to loopback with no trusted proxy in front of it. */
  checkHost: boolean;
}

/** Pure: undefined when the request may go on, otherwise why it may not. */
export function originRefusal(input: OriginCheckInput): string | undefined {
  const host = (input.host ?? '').toLowerCase();
  if (input.checkHost && !isKnownHost(host, input)) {
    return `the Host header ${JSON.stringify(host)} does not name this server (DNS rebinding protection)`;
  }
  if (input.origin === undefined) return undefined;
  const origin = input.origin.toLowerCase();
  if (input.allowedOrigins.includes(origin)) return undefined;
  if (origin === `${input.protocol}://${host}`) return undefined;
  return `requests from origin ${JSON.stringify(input.origin)} are not allowed (ALLOWED_ORIGINS)`;
}

/** Pure: a host this server answers to — a loopback name, PUBLIC_URL's host or an ALLOWED_ORIGINS origin's host. */
export function isKnownHost(host: string, rules: HostRules): boolean {
  const lower = host.toLowerCase();
  if (isLoopbackHost(lower)) return true;
  if (rules.publicUrl !== undefined && new URL(rules.publicUrl).host === lower) return true;
  return rules.allowedOrigins.some((origin) => new URL(origin).host === lower);
}

/**
 * Pure: where this service is reached, for the URLs it hands out. PUBLIC_URL when set; else the allowed origin the
 * request's host names; else, for a loopback name, that name (it points at the caller's own machine); else null —
 * a host nobody configured, whose word the server must not repeat to the next client (a proxy or a cache may).
 */
export function trustedBaseUrl(host: string | undefined, protocol: string, rules: HostRules): string | null {
  if (rules.publicUrl !== undefined) return rules.publicUrl.replace(/\/+$/, '');
  const lower = (host ?? '').toLowerCase();
  const origin = rules.allowedOrigins.find((allowed) => new URL(allowed).host === lower);
  if (origin !== undefined) return origin;
  return isLoopbackHost(lower) ? `${protocol}://${lower}` : null;
}

/**
 * A loopback name with at most a numeric port, and nothing else: "localhost:@evil.example" starts with a loopback
 * name, but a URL built from it has the host evil.example.
 */
const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::[0-9]{1,5})?$/;

function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}

function isLoopbackAddress(address: string): boolean {
  return LOOPBACK_NAMES.has(address) || address.startsWith('127.');
}

/** The rules of a configuration. */
export function hostRulesOf(config: Config): HostRules {
  return { publicUrl: config.publicUrl, allowedOrigins: config.allowedOrigins };
}

/**
 * Guards every request: the Host on every path (the dashboard, /.well-known, /oauth and /metrics as much as the
 * API: each of them answers with what its Host implies), the Origin on /api and /mcp (the dashboard's static
 * files are plain GETs a browser may load). Throws ORIGIN_NOT_ALLOWED; the app's one onRequest gate calls it (one
 * hook, not one per concern: each async hook costs a promise and a trip through Fastify's hook runner).
 */
export function originCheck(config: Config): (request: FastifyRequest) => void {
  const checkHost = isLoopbackAddress(config.host) && config.trustedProxies === false;
  const rules = hostRulesOf(config);
  return (request) => {
    const path = request.url;
    const guarded = path.startsWith('/api/') || path.startsWith('/mcp');
    const refusal = originRefusal({
      origin: guarded ? request.headers.origin : undefined,
      host: request.headers.host,
      protocol: request.protocol,
      ...rules,
      checkHost,
    });
    if (refusal !== undefined) throw new AppError('ORIGIN_NOT_ALLOWED', refusal);
  };
}

/**
 * Where this service is reached, for a URL it hands out in answer to `request`; ORIGIN_NOT_ALLOWED when the
 * request's host is not one it knows (a server behind a proxy or on a public interface needs PUBLIC_URL).
 */
export function baseUrlFor(request: FastifyRequest, rules: HostRules): string {
  const base = trustedBaseUrl(request.host, request.protocol, rules);
  if (base !== null) return base;
  throw new AppError(
    'ORIGIN_NOT_ALLOWED',
    `the Host ${JSON.stringify(request.host.slice(0, 100))} is not where this server is reached, so it cannot name ` +
      'its own URLs from it: set PUBLIC_URL (or list the origin in ALLOWED_ORIGINS)',
  );
}
