// 405 Method Not Allowed (RFC 9110 section 15.5.6): a request whose path is a route of this server but whose
// method is not one of that path's answers 405 with `Allow` listing the path's methods (HEAD wherever GET is) and
// the failure envelope, code METHOD_NOT_ALLOWED; a path no route has stays a 404. One place for every route,
// documented or hidden: the routes are collected as Fastify registers them.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

export interface RouteMethods {
  /** The methods of the routes whose pattern matches this path (sorted, HEAD beside GET); empty: no route. */
  allowedFor(path: string): string[];
}

interface Pattern {
  segments: readonly string[];
  methods: Set<string>;
}

/** Must be called before any route is registered: it listens to Fastify's onRoute. */
export function collectRouteMethods(app: FastifyInstance): RouteMethods {
  const patterns = new Map<string, Pattern>();
  app.addHook('onRoute', (route) => {
    // Wildcard routes (the dashboard's static files) are not a path's "methods": anything else there is a 404.
    if (route.url.includes('*')) return;
    const url = withoutTrailingSlash(route.url);
    let pattern = patterns.get(url);
    if (pattern === undefined) {
      pattern = { segments: url.split('/'), methods: new Set() };
      patterns.set(url, pattern);
    }
    for (const method of [route.method].flat()) pattern.methods.add(method.toUpperCase());
    if (pattern.methods.has('GET')) pattern.methods.add('HEAD');
  });
  return {
    allowedFor(path) {
      const segments = withoutTrailingSlash(path.split('?')[0] ?? '').split('/');
      const allowed = new Set<string>();
      for (const pattern of patterns.values()) {
        if (matches(pattern.segments, segments)) for (const method of pattern.methods) allowed.add(method);
      }
      return [...allowed].sort();
    },
  };
}

/** The 405 for a request whose method the path does not have, or null when the path has it or no route has the path. */
export function methodNotAllowed(routes: RouteMethods, method: string, url: string): AppError | null {
  const allowed = routes.allowedFor(url);
  if (allowed.length === 0 || allowed.includes(method.toUpperCase())) return null;
  const path = url.split('?')[0] ?? '';
  return new AppError(
    'METHOD_NOT_ALLOWED',
    `${path} does not answer ${method}; it answers ${allowed.join(', ')}`,
    {
      headers: { allow: allowed.join(', ') },
    },
  );
}

// The router ignores a trailing slash (routerOptions.ignoreTrailingSlash), so this does too.
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  return pattern.every((segment, i) => {
    const actual = path[i] ?? '';
    return segment.startsWith(':') ? actual !== '' : segment === actual;
  });
}
