// 405 Method Not Allowed (RFC 9110 section 15.5.6): a request whose path is a route of this server but whose
// method is not one of that path's answers 405 with `Allow` listing the path's methods (HEAD wherever GET is) and
// the failure envelope, code METHOD_NOT_ALLOWED; a path no route has stays a 404. One place for every route,
// documented or hidden: the routes are collected as Fastify registers them.
//
// A path belongs to the most specific route pattern that matches it: a static segment before a parameter, from
// the left — how OpenAPI matches a URL ("concrete paths before templated ones") and how the router prefers a
// static segment. The router alone does not hold to it across methods, because it keeps one tree per method:
// DELETE /auth/sessions/end-others finds DELETE /auth/sessions/:id, since /auth/sessions/end-others has no DELETE.
// That request is a 405 too (Allow: POST), never an answer of a route the path is not.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

export interface RouteMethods {
  /** The methods of the most specific route pattern matching this path (sorted, HEAD beside GET); empty: none. */
  allowedFor(path: string): string[];
  /**
   * Whether the router's choice for a request routed to `routeUrl` may be a less specific pattern than its
   * path's: only then must allowedFor be asked. False for routes no other pattern can shadow (most of them).
   */
  mayBeShadowed(routeUrl: string): boolean;
}

interface Pattern {
  segments: readonly string[];
  methods: Set<string>;
}

/** Must be called before any route is registered: it listens to Fastify's onRoute. */
export function collectRouteMethods(app: FastifyInstance): RouteMethods {
  // By shape (parameters unnamed): /x/:id and /x/:walletId are one path whatever the parameter's name.
  const patterns = new Map<string, Pattern>();
  const byRouteUrl = new Map<string, Pattern>();
  let shadowed: Set<Pattern> | null = null;
  app.addHook('onRoute', (route) => {
    // Wildcard routes (the dashboard's static files) are not a path's "methods": anything else there is a 404.
    if (route.url.includes('*')) return;
    const url = withoutTrailingSlash(route.url);
    const segments = url.split('/');
    const shape = segments.map((segment) => (isParameter(segment) ? ':' : segment)).join('/');
    let pattern = patterns.get(shape);
    if (pattern === undefined) {
      pattern = { segments, methods: new Set() };
      patterns.set(shape, pattern);
    }
    byRouteUrl.set(url, pattern);
    for (const method of [route.method].flat()) pattern.methods.add(method.toUpperCase());
    if (pattern.methods.has('GET')) pattern.methods.add('HEAD');
    shadowed = null; // a new pattern may shadow an older one
  });
  return {
    allowedFor(path) {
      const best = mostSpecific(patterns.values(), segmentsOf(path));
      return best === null ? [] : [...best.methods].sort();
    },
    mayBeShadowed(routeUrl) {
      const pattern = byRouteUrl.get(withoutTrailingSlash(routeUrl));
      if (pattern === undefined) return true; // a wildcard route: the path may still be another route's
      shadowed ??= shadowedPatterns([...patterns.values()]);
      return shadowed.has(pattern);
    },
  };
}

/**
 * The 405 for a request whose method its path does not have, or null when the path has it or no route has the
 * path. `routeUrl` is the pattern the router chose (undefined: none), so most requests cost one lookup.
 */
export function methodNotAllowed(
  routes: RouteMethods,
  request: { method: string; url: string; routeUrl: string | undefined },
): AppError | null {
  if (request.routeUrl !== undefined && !routes.mayBeShadowed(request.routeUrl)) return null;
  const allowed = routes.allowedFor(request.url);
  if (allowed.length === 0 || allowed.includes(request.method.toUpperCase())) return null;
  const path = request.url.split('?')[0] ?? '';
  return new AppError(
    'METHOD_NOT_ALLOWED',
    `${path} does not answer ${request.method}; it answers ${allowed.join(', ')}`,
    { headers: { allow: allowed.join(', ') } },
  );
}

function segmentsOf(url: string): string[] {
  return withoutTrailingSlash(url.split('?')[0] ?? '').split('/');
}

// The router ignores a trailing slash (routerOptions.ignoreTrailingSlash), so this does too.
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

const isParameter = (segment: string) => segment.startsWith(':');

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  return pattern.every((segment, i) => {
    const actual = path[i] ?? '';
    return isParameter(segment) ? actual !== '' : segment === actual;
  });
}

/** Negative when `a` is more specific: at the first position where one has a static segment, that one. */
function compareSpecificity(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const aParameter = isParameter(a[i] ?? '');
    if (aParameter !== isParameter(b[i] ?? '')) return aParameter ? 1 : -1;
  }
  return 0;
}

function mostSpecific(patterns: Iterable<Pattern>, path: readonly string[]): Pattern | null {
  let best: Pattern | null = null;
  for (const pattern of patterns) {
    if (!matches(pattern.segments, path)) continue;
    if (best === null || compareSpecificity(pattern.segments, best.segments) < 0) best = pattern;
  }
  return best;
}

/** The patterns some path matches together with a more specific pattern (so the router may pick them wrongly). */
function shadowedPatterns(patterns: readonly Pattern[]): Set<Pattern> {
  const shadowed = new Set<Pattern>();
  for (const pattern of patterns) {
    const overlaps = (other: Pattern) =>
      other !== pattern &&
      other.segments.length === pattern.segments.length &&
      other.segments.every(
        (s, i) => isParameter(s) || isParameter(pattern.segments[i] ?? '') || s === pattern.segments[i],
      ) &&
      compareSpecificity(other.segments, pattern.segments) < 0;
    if (patterns.some(overlaps)) shadowed.add(pattern);
  }
  return shadowed;
}
